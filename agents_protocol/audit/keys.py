"""Ed25519 keys: the public part as base64 DER SubjectPublicKeyInfo, as in agents.json."""
import base64
import hashlib

from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

# DER SubjectPublicKeyInfo of an Ed25519 key = this fixed prefix + the 32 raw key bytes (RFC 8410).
ED25519_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")


def public_key_b64(verify_key: VerifyKey):
    return base64.b64encode(ED25519_SPKI_PREFIX + bytes(verify_key)).decode("ascii")


def key_id(verify_key: VerifyKey):
    return "ed25519:" + hashlib.sha256(bytes(verify_key)).hexdigest()[:16]


def verify_key_from_b64(text):
    """A VerifyKey from base64 DER SPKI (or base64 of the raw 32 bytes); ValueError if neither."""
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (ValueError, AttributeError):
        raise ValueError("The public key is not base64.") from None
    if raw.startswith(ED25519_SPKI_PREFIX):
        raw = raw[len(ED25519_SPKI_PREFIX):]
    if len(raw) != 32:
        raise ValueError("The public key is not an Ed25519 key.")
    return VerifyKey(raw)


def sign_b64(signing_key: SigningKey, message: str):
    return base64.b64encode(signing_key.sign(message.encode("ascii")).signature).decode("ascii")


def signature_valid(verify_key: VerifyKey, message: str, signature_b64: str):
    try:
        verify_key.verify(message.encode("ascii"), base64.b64decode(signature_b64, validate=True))
        return True
    except (BadSignatureError, ValueError):
        return False
