"""Webhook signatures as UCP's order capability asks (order.md, "Webhook Signature Verification"):
a detached JWS over the exact request body (RFC 7515 appendix F) with the unencoded payload
option (RFC 7797), in the `Request-Signature` header, its `kid` naming a key of the business
profile's `signing_keys`.

The key is the site's Ed25519 signing key (audit/signing.py): one per deployment, the same in
every worker and instance, so any of them signs what the published key verifies. Its JWK is
RFC 8037's (`OKP`, `Ed25519`, algorithm `EdDSA`).
"""
import base64
import json

from agents_protocol.audit.keys import key_id
from agents_protocol.audit.signing import signing_key


def _b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def public_jwk():
    """The key that verifies webhook signatures, for the business profile's `signing_keys`."""
    verify_key = signing_key().verify_key
    return {"kid": key_id(verify_key), "kty": "OKP", "crv": "Ed25519", "x": _b64url(bytes(verify_key)),
            "use": "sig", "alg": "EdDSA"}


def detached_signature(body):
    """`Request-Signature` for `body` (bytes): `<protected header>..<signature>`, the payload left out."""
    key = signing_key()
    header = {"alg": "EdDSA", "kid": key_id(key.verify_key), "b64": False, "crit": ["b64"]}
    protected = _b64url(json.dumps(header, separators=(",", ":")).encode())
    signature = key.sign(protected.encode("ascii") + b"." + body).signature
    return f"{protected}..{_b64url(signature)}"
