"""Ending sessions for audit: sealing expired ones, rotating the key, pruning old artifacts."""
from datetime import timedelta

from django.utils import timezone
from nacl.signing import SigningKey as NaclSigningKey

from agents_protocol.audit.chain import close_and_seal
from agents_protocol.audit.keys import key_id, public_key_b64
from agents_protocol.audit.signing import current_key_record, replace_key_file
from agents_protocol.core.conf import get_setting
from agents_protocol.core.config import bump_revision
from agents_protocol.core.models import (
    AgentSession,
    AuditArtifact,
    AuditEvent,
    SigningKey,
)


def seal_expired(now=None):
    """Seal every session past its deadline that nobody touched since; returns how many."""
    now = now or timezone.now()
    expired = AgentSession.objects.filter(ended_at__isnull=True, expires_at__lte=now)
    count = 0
    for session in expired.iterator():
        close_and_seal(session, "expired", session.expires_at)
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
    """Delete sealed trails older than the retention period; returns how many sessions were pruned."""
    cutoff = (now or timezone.now()) - timedelta(days=get_setting("AUDIT_RETENTION_DAYS"))
    old = AgentSession.objects.filter(ended_at__lt=cutoff, audit_artifact__isnull=False)
    ids = list(old.values_list("pk", flat=True))
    AuditEvent.objects.filter(session_id__in=ids).delete()
    AuditArtifact.objects.filter(session_id__in=ids).delete()
    return len(ids)
