"""Sensitive parameters enter the chain only as `sha256:<hex>` of their canonical JSON."""
import hashlib

from agents_protocol.audit.hashing import canonical_json

SENSITIVE_NAMES = {"email", "message", "name", "phone", "address", "authorization"}
SENSITIVE_PARTS = ("token", "secret", "password", "key")


def is_sensitive(name):
    lowered = name.lower()
    return lowered in SENSITIVE_NAMES or any(part in lowered for part in SENSITIVE_PARTS)


def digest(value):
    return "sha256:" + hashlib.sha256(canonical_json(value)).hexdigest()


def redact(params):
    return {
        name: digest(value) if is_sensitive(name) else (redact(value) if isinstance(value, dict) else value)
        for name, value in params.items()
    }
