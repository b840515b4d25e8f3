"""Signed, hash-chained audit trails of agent sessions (format `agents-protocol-audit/1`).

Offline verification needs nothing from this site but the artifact and its public key:

    from agents_protocol.audit import verify
    verdict = verify(artifact, public_key)   # verdict.ok, verdict.failure
"""
from agents_protocol.audit.verification import Verdict, verify

__all__ = ["Verdict", "verify"]
