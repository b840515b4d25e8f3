"""Offline verification of an audit artifact: every check, in order, until the first failure."""
from dataclasses import dataclass, field

from agents_protocol.audit.hashing import (
    ALGORITHM,
    CANONICALIZATION,
    EVENT_FIELDS,
    FORMAT,
    event_hash,
    root_hash,
)
from agents_protocol.audit.keys import signature_valid, verify_key_from_b64

ARTIFACT_FIELDS = (
    "format", "session_id", "events", "root_hash", "algorithm",
    "canonicalization", "key_id", "public_key", "signature",
)


@dataclass
class Verdict:
    ok: bool
    failure: str | None = None  # the first failing check, in words
    passed: list = field(default_factory=list)  # names of the checks that passed, in order

    def __str__(self):
        if self.ok:
            return f"VALID: {len(self.passed)} checks passed ({', '.join(self.passed)})."
        return f"INVALID: {self.failure}"


class _Failed(Exception):
    pass


def verify(artifact, public_key=None):
    """Verify `artifact` (a dict) against `public_key` (base64 DER SPKI or raw 32 bytes, base64).

    Without `public_key` the artifact's own key is used, which proves integrity but not
    authorship: pass the key published in the site's agents.json for that.
    """
    verdict = Verdict(ok=False)

    def check(name, condition, failure):
        if not condition:
            raise _Failed(f"{name}: {failure}")
        verdict.passed.append(name)

    try:
        _check_shape(artifact, check)
        _check_chain(artifact["events"], check)
        _check_binding(artifact, check)
        hashes = [e["event_hash"] for e in artifact["events"]]
        check("root_hash", root_hash(hashes) == artifact["root_hash"],
              "root_hash is not the sha256 of the concatenated event hashes")
        key_text = public_key or artifact["public_key"]
        try:
            verify_key = verify_key_from_b64(key_text)
        except ValueError as error:
            raise _Failed(f"public_key: {error}") from None
        check("signature", signature_valid(verify_key, artifact["root_hash"], artifact["signature"]),
              "the Ed25519 signature of root_hash does not verify with this public key")
    except _Failed as failed:
        verdict.failure = str(failed)
        return verdict
    verdict.ok = True
    return verdict


def _check_shape(artifact, check):
    check("shape", isinstance(artifact, dict) and all(k in artifact for k in ARTIFACT_FIELDS),
          f"an artifact needs the fields {', '.join(ARTIFACT_FIELDS)}")
    check("format", artifact["format"] == FORMAT, f"format must be {FORMAT!r}")
    check("algorithm", artifact["algorithm"] == ALGORITHM and artifact["canonicalization"] == CANONICALIZATION,
          f"algorithm must be {ALGORITHM} over {CANONICALIZATION} JSON")
    events = artifact["events"]
    check("events", isinstance(events, list) and events and all(
        isinstance(e, dict) and all(f in e for f in (*EVENT_FIELDS, "event_hash")) for e in events
    ), "events must be a non-empty list of complete events")


def _check_chain(events, check):
    previous_hash, previous_time = "", ""
    for position, event in enumerate(events, start=1):
        where = f"event {position}"
        check(f"{where} seq", event["seq"] == position, f"seq is {event['seq']!r}, expected {position} (missing or reordered events)")
        check(f"{where} hash", event_hash(event) == event["event_hash"], "its content does not match its event_hash (edited)")
        check(f"{where} link", event["prev_hash"] == previous_hash, "prev_hash does not match the previous event_hash (chain broken)")
        check(f"{where} time", event["timestamp"] >= previous_time, "timestamp goes back in time")
        previous_hash, previous_time = event["event_hash"], event["timestamp"]
    check("opening", events[0]["capability"] == "session.create", "the first event must be session.create")
    check("closing", events[-1]["capability"] == "session.end", "the last event must be session.end (truncated?)")


def _check_binding(artifact, check):
    """The artifact's own fields against what the signed chain says of them: its session and its
    site (named in the opening event's params, by trails opened since each was recorded) and its end."""
    opening, closing = artifact["events"][0]["params"], artifact["events"][-1]["params"]
    if isinstance(opening, dict) and "session_id" in opening:
        check("session", opening["session_id"] == artifact["session_id"],
              "session_id is not the session its chain opened (relabelled?)")
    if isinstance(opening, dict) and "site" in opening:
        check("site", opening["site"] == artifact.get("site"), "site is not the site its chain opened on (relabelled?)")
    if "end_reason" in artifact and isinstance(closing, dict) and "reason" in closing:
        check("end_reason", closing["reason"] == artifact["end_reason"], "end_reason is not the reason the chain ended")
