"""Signed requests of platforms that registered an Ed25519 public key.

`Timestamp` is an RFC 3339 time within MAX_CLOCK_SKEW of the server's clock; `Signature` is
the base64url Ed25519 signature of `<Timestamp>.<canonical JSON of the body>` (keys sorted,
no whitespace, UTF-8; an empty string for a request without a body). A replayed signature
is as old as its Timestamp, so it expires with it; the Idempotency-Key stops repeats within.
"""
import base64
import binascii
import json
from datetime import timedelta

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from agents_protocol.platforms.models import ed25519_public_key

MAX_CLOCK_SKEW = timedelta(minutes=5)
TIMESTAMP_FORMAT = "Timestamp must be an RFC 3339 date-time with a time zone."


class SignatureRefused(Exception):
    """Why a request's signature is refused (the sentence is the refusal's)."""


def parsed_timestamp(timestamp):
    """The aware datetime an RFC 3339 `Timestamp` header says, else None."""
    try:
        moment = parse_datetime(timestamp.strip())
    except ValueError:
        return None
    return moment if moment is not None and moment.tzinfo is not None else None


def canonical_body(raw_body):
    if not raw_body.strip():
        return b""
    try:
        value = json.loads(raw_body)
    except (ValueError, RecursionError):
        raise SignatureRefused("The body is not JSON, so its signature cannot be checked.") from None
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def signed_message(timestamp, raw_body):
    return timestamp.encode() + b"." + canonical_body(raw_body)


def verify(signing_key, signature, timestamp, raw_body, now=None):
    """Refuse (SignatureRefused) unless `signature` signs the request for `signing_key` and
    `timestamp` is within MAX_CLOCK_SKEW of now."""
    if not signature or not timestamp:
        raise SignatureRefused("This platform signs its requests: send Signature and Timestamp headers.")
    moment = parsed_timestamp(timestamp)
    if moment is None:
        raise SignatureRefused(TIMESTAMP_FORMAT)
    if abs((now or timezone.now()) - moment) > MAX_CLOCK_SKEW:
        raise SignatureRefused(f"Timestamp is more than {int(MAX_CLOCK_SKEW.total_seconds())} seconds from "
                               "the server's clock; sign the request again.")
    try:
        raw_signature = base64.urlsafe_b64decode(signature.strip() + "=" * (-len(signature.strip()) % 4))
        VerifyKey(ed25519_public_key(signing_key)).verify(signed_message(timestamp, raw_body), raw_signature)
    except (binascii.Error, ValueError, BadSignatureError):
        raise SignatureRefused("Signature does not sign this request with the platform's registered key.") from None
