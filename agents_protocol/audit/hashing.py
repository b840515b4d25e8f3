"""The hashes of the format: events are hashed as RFC 8785 canonical JSON.

Every audited call hashes its event before it answers, and the `rfc8785` package, written in
Python, costs several times what the standard library's C encoder does. For the values an
event usually holds (strings, booleans, null, safe integers, lists, objects with ASCII keys)
the two write the same bytes: RFC 8785 escapes exactly what `json` escapes with
`ensure_ascii=False` (`"`, `\\`, and below U+0020, short forms where JSON has them, else
`\\u00xx` in lower case), writes such integers as their digits, and sorts keys by UTF-16 code
units, which for ASCII is the order of `sort_keys`. Anything else (floats, non-ASCII keys,
big integers, tuples, subclasses, lone surrogates) goes to `rfc8785`, which writes it or
refuses it as the RFC says (tests/test_audit_canonical_json.py compares the two).
"""
import hashlib
import json

import rfc8785

FORMAT = "agents-protocol-audit/1"
ALGORITHM = "Ed25519"
CANONICALIZATION = "RFC8785"
EVENT_FIELDS = (
    "seq", "event_id", "timestamp", "capability", "method", "path",
    "params", "response_status", "policy_result", "prev_hash",
)
SAFE_INTEGER = 2**53 - 1  # RFC 8785 numbers are IEEE doubles: integers beyond are refused
PLAIN_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"), check_circular=False)


def canonical_json(value):
    """The RFC 8785 canonical JSON of `value`, as UTF-8 bytes."""
    if is_plain(value):
        try:
            return PLAIN_ENCODER.encode(value).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: rfc8785 refuses it with its own error
            pass
    return rfc8785.dumps(value)


def is_plain(value):
    """True when `json` writes `value` exactly as RFC 8785 does (the module docstring says why)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return -SAFE_INTEGER <= value <= SAFE_INTEGER
    if kind is dict:
        return all(type(key) is str and key.isascii() and is_plain(item) for key, item in value.items())
    if kind is list:
        return all(is_plain(item) for item in value)
    return False


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def event_hash(event):
    """sha256 of the canonical JSON of the event's own fields (never of `event_hash`)."""
    return sha256_hex(canonical_json({field: event[field] for field in EVENT_FIELDS}))


def root_hash(event_hashes):
    return sha256_hex("".join(event_hashes).encode("ascii"))
