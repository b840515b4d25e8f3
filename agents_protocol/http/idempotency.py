"""`Idempotency-Key` on the agent API's POST calls: a request sent again runs once.

An agent that lost an answer (a timeout, a dropped connection) sends the same request again
with the same `Idempotency-Key` header and gets the first answer back, instead of a second
order or a second add to its cart:

- same key, same request (method, path, capability, body) → the stored answer, with
  `Idempotent-Replayed: true` (the capability counts because A2A, PactSpec's dispatcher and MCP
  reach every capability at one path);
- same key, another request → 422 `idempotency_conflict`;
- the first request still running → 409 `idempotency_in_flight` with `Retry-After`;
- the first request changed something (its transaction committed) but its answer was never
  stored (a worker killed, a failure while answering) → 409 `idempotency_outcome_unknown` once
  the in-flight lease has passed, never a second run.

A key belongs to a scope: the session for calls with one, else the client address (session
create, calls without a session), so no agent can replay another's answers. Keys are kept
RETENTION (24 hours); an expired key is reused in place, and `manage.py agents_idempotency
prune` (cron) deletes the rest. Calls whose outcome asks for a retry (5xx, 409, 429) are not
kept: the key is released and the retry runs. The outcome is the call's, not the HTTP status
its answer went out with: A2A and MCP answer most refusals with 200.

Stored answers can hold secrets the database otherwise keeps only as hashes (a session token,
a checkout URL). So a record holds the key only as a hash of scope and key, and the answer
sealed (XSalsa20-Poly1305) with a key derived from SECRET_KEY and the raw Idempotency-Key:
a database dump alone reveals neither. Changing SECRET_KEY forgets every stored key.
"""
import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from datetime import timedelta

import simplejson
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from nacl.secret import SecretBox

from agents_protocol.core import codec
from agents_protocol.core.conf import app_settings
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.models import IdempotencyRecord

HEADER = "HTTP_IDEMPOTENCY_KEY"
RETENTION = timedelta(hours=24)
# Visible ASCII, as the IETF draft's examples, but the comma: a server joins repeated headers with one.
KEY_FORMAT = re.compile(r"[\x21-\x2b\x2d-\x7e]{1,255}")
RETRYABLE_STATUSES = {409, 429}
# response_status of a key whose call committed its change, its answer not stored yet.
CHANGED = 0


@dataclass(frozen=True)
class Replay:
    status: int
    body: dict


@dataclass(frozen=True)
class Claim:
    record_id: int
    box: SecretBox


def key_from(request):
    """The request's Idempotency-Key, None without one; a malformed key is a 400."""
    raw = request.META.get(HEADER)
    if raw is None:
        return None
    if not KEY_FORMAT.fullmatch(raw):
        raise CapabilityError(400, "invalid_idempotency_key",
                              "The Idempotency-Key header must be one key of 1 to 255 visible ASCII characters, "
                              "without commas.")
    return raw


def scope_for(session, address):
    return f"session:{session.public_id}" if session is not None else f"address:{address}"


def fingerprint(method, path, capability, values):
    """What makes two requests the same: method, path, the capability called (its name, "" for
    none) and the JSON body's values."""
    canonical = json.dumps([method, path, capability, values], sort_keys=True, ensure_ascii=False,
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def begin(scope, raw_key, request_fingerprint):
    """A Replay of the stored answer, or a Claim on the key for this request (raises 409 or 422)."""
    key_hash, box = _key_hash(scope, raw_key), _box(scope, raw_key)
    for _attempt in range(2):  # the second after removing an expired or abandoned record
        record = _create(key_hash, request_fingerprint)
        if record is not None:
            return Claim(record.pk, box)
        existing = IdempotencyRecord.objects.filter(key_hash=key_hash).first()
        if existing is None or _remove_if_stale(existing):
            continue
        if existing.fingerprint != request_fingerprint:
            raise CapabilityError(422, "idempotency_conflict",
                                  "This Idempotency-Key was used for a different request; use a new key.")
        if existing.response_status is None:
            break
        if existing.response_status == CHANGED:
            _refuse_a_change_without_its_answer(existing)
            break
        return Replay(existing.response_status, _unseal(box, existing.response_body))
    raise CapabilityError(409, "idempotency_in_flight",
                          "A request with this Idempotency-Key is still being processed; retry shortly.",
                          headers={"Retry-After": "1"})


def mark_changed(claim):
    """In the transaction of the call's change: the key's call changed something (CHANGED)."""
    IdempotencyRecord.objects.filter(pk=claim.record_id, response_status=None).update(response_status=CHANGED)


def finish(claim, outcome_status, status, body):
    """Keep the answer (its HTTP status and body) for replays, or release the key when the
    call's outcome asks for a retry and it changed nothing (a call that changed something and
    then failed keeps the key: a retry would change it again)."""
    record = IdempotencyRecord.objects.filter(pk=claim.record_id)
    if outcome_status >= 500 or outcome_status in RETRYABLE_STATUSES:
        record.filter(response_status=None).delete()
        return
    sealed = claim.box.encrypt(codec.encode(body))
    record.update(response_status=status, response_body=sealed)


def _refuse_a_change_without_its_answer(record):
    """A call with this key changed something and its answer was never stored (its worker died, or
    it failed while answering): past the in-flight lease, say so instead of running it again."""
    if record.created_at > timezone.now() - in_flight_lease():
        return  # the answer is probably on its way: 409 idempotency_in_flight
    raise CapabilityError(409, "idempotency_outcome_unknown",
                          "The request with this Idempotency-Key was carried out, but its answer was lost; read "
                          "the result (cart.view, order.status) instead of sending it again.")


def prune(now=None):
    """Delete expired records; returns how many."""
    deleted, _ = IdempotencyRecord.objects.filter(expires_at__lte=now or timezone.now()).delete()
    return deleted


def _create(key_hash, request_fingerprint):
    now = timezone.now()
    try:
        with transaction.atomic():
            return IdempotencyRecord.objects.create(
                key_hash=key_hash, fingerprint=request_fingerprint, created_at=now, expires_at=now + RETENTION
            )
    except IntegrityError:
        return None


def _remove_if_stale(record):
    """Delete an expired record, or one in flight past its lease; True if it was stale."""
    now = timezone.now()
    abandoned = record.response_status is None and record.created_at <= now - in_flight_lease()
    if record.expires_at > now and not abandoned:
        return False
    IdempotencyRecord.objects.filter(pk=record.pk, created_at=record.created_at).delete()
    return True


def in_flight_lease():
    """A request still marked in flight after this long died with its worker (core/conf.py)."""
    return timedelta(seconds=app_settings.IDEMPOTENCY_LEASE_SECONDS)


def _unseal(box, sealed):
    return simplejson.loads(box.decrypt(bytes(sealed)), use_decimal=True)


def _derive(purpose, scope, raw_key):
    message = "\n".join([purpose, scope, raw_key]).encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256)


def _key_hash(scope, raw_key):
    return _derive("agents_protocol.idempotency.key", scope, raw_key).hexdigest()


def _box(scope, raw_key):
    return SecretBox(_derive("agents_protocol.idempotency.box", scope, raw_key).digest())
