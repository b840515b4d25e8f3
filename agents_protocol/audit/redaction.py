"""Sensitive parameters enter the chain only as `sha256:<hex>` of their canonical JSON.

A value is sensitive by its name, at any depth (objects inside lists too): the names below,
or a name containing one of the parts (`customer_email`, `shipping_address`, `api_key`).
Once in the signed chain a value can never be taken out again, so the net is wide.
"""
import hashlib

from agents_protocol.audit.hashing import canonical_json

SENSITIVE_NAMES = {"name", "message", "authorization"}
SENSITIVE_PARTS = ("email", "phone", "address", "token", "secret", "password", "key")


def is_sensitive(name):
    lowered = name.lower()
    return lowered in SENSITIVE_NAMES or any(part in lowered for part in SENSITIVE_PARTS)


def digest(value):
    return "sha256:" + hashlib.sha256(canonical_json(value)).hexdigest()


def redact(params):
    return {name: digest(value) if is_sensitive(name) else _redacted(value) for name, value in params.items()}


def _redacted(value):
    if isinstance(value, dict):
        return redact(value)
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    return value
