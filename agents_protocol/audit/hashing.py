"""The hashes of the format: events are hashed as RFC 8785 canonical JSON."""
import hashlib

import rfc8785

FORMAT = "agents-protocol-audit/1"
ALGORITHM = "Ed25519"
CANONICALIZATION = "RFC8785"
EVENT_FIELDS = (
    "seq", "event_id", "timestamp", "capability", "method", "path",
    "params", "response_status", "policy_result", "prev_hash",
)


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def event_hash(event):
    """sha256 of the canonical JSON of the event's own fields (never of `event_hash`)."""
    return sha256_hex(rfc8785.dumps({field: event[field] for field in EVENT_FIELDS}))


def root_hash(event_hashes):
    return sha256_hex("".join(event_hashes).encode("ascii"))
