"""Ending sessions for audit: sealing expired ones, rotating the key, pruning old artifacts."""
import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone
from nacl.signing import SigningKey as NaclSigningKey

from agents_protocol.audit.chain import close_and_seal
from agents_protocol.audit.keys import key_id, public_key_b64
from agents_protocol.audit.signing import current_key_record, replace_key_file
from agents_protocol.core.conf import app_settings
from agents_protocol.core.config import bump_revision
from agents_protocol.core.models import AgentSession, SigningKey

logger = logging.getLogger(__name__)


def seal_expired(now=None):
    """Seal every session past its deadline that nobody touched since; returns how many. A session
    that cannot be sealed is logged and left for the next run: the others, and the pruning that
    follows in agents_prune, go on."""
    now = now or timezone.now()
    expired = AgentSession.objects.filter(ended_at__isnull=True, expires_at__lte=now)
    count = 0
    for session in expired.iterator():
        try:
            close_and_seal(session, "expired", session.expires_at)
        except Exception:
            logger.exception("Could not seal the expired session %s", session.public_id)
            continue
        count += 1
    return count


def rotate_key():
    """End and seal every live session with the old key, then switch to a new one."""
    now = timezone.now()
    old = current_key_record()
    live = AgentSession.objects.filter(ended_at__isnull=True)
    ended = 0
    for session in live.iterator():
        reason = "expired" if session.expires_at <= now else "rotated"
        close_and_seal(session, reason, min(now, session.expires_at))
        ended += 1
    new_key = NaclSigningKey.generate()
    replace_key_file(new_key)
    SigningKey.objects.filter(pk=old.pk).update(retired_at=now)
    SigningKey.objects.get_or_create(
        key_id=key_id(new_key.verify_key), defaults={"public_key": public_key_b64(new_key.verify_key)}
    )
    bump_revision()  # agents.json publishes the new public key on the next request
    return old.key_id, key_id(new_key.verify_key), ended


def prune(now=None):
    """Delete the sessions that ended more than AUDIT_RETENTION_DAYS ago, with everything that
    is theirs (audit events, sealed artifact, handoffs; the shop's rows that cascade with them);
    returns how many.

    A session the shop still holds on to (a row that protects it, such as an order it keeps
    longer) stays, with its trail, until the shop's own retention lets it go.
    """
    cutoff = (now or timezone.now()) - timedelta(days=app_settings.AUDIT_RETENTION_DAYS)
    ended = list(AgentSession.objects.filter(ended_at__lt=cutoff).order_by("pk").values_list("pk", flat=True))
    pruned = 0
    for batch in _batches(ended, PRUNE_BATCH):
        pruned += _delete_sessions(batch)
    return pruned


PRUNE_BATCH = 500


def _batches(ids, size):
    batch = []
    for pk in ids:
        batch.append(pk)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _delete_sessions(ids):
    """Delete these sessions; when the shop protects some of them, every other one."""
    try:
        with transaction.atomic():
            AgentSession.objects.filter(pk__in=ids).delete()
        return len(ids)
    except ProtectedError:
        return sum(_delete_sessions([pk]) for pk in ids) if len(ids) > 1 else 0
