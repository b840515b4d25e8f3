"""Audit artifacts: a sealed chain verifies offline, and every kind of tampering is caught."""
import base64
import copy
import json
import os
import re
import subprocess
import sys

import pytest
import requests
from django.core.management import CommandError, call_command
from django.utils import timezone
from nacl.signing import SigningKey as NaclSigningKey

from agents_protocol.audit import verify
from agents_protocol.audit.chain import close_and_seal, record_event
from agents_protocol.audit.hashing import EVENT_FIELDS, event_hash
from agents_protocol.audit.keys import public_key_b64
from agents_protocol.audit.lifecycle import rotate_key
from agents_protocol.audit.signing import signing_key
from agents_protocol.audit.verification import ARTIFACT_FIELDS
from agents_protocol.core.reserved import SESSION_CREATE
from agents_protocol.models import AgentSession, AuditEvent, SigningKey
from tests.api_client import API, AgentClient, ok_data
from tests.factories import make_agent_session
from tests.servers import ROOT, site_env, start_site

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("key_file")]  # a signing key of its own: tests/conftest.py


def sealed_artifact(calls=3):
    session = make_agent_session(audited=True)
    record_event(session, capability=SESSION_CREATE, method="POST", path="/api/session",
                 params={"agent_name": "tester", "session_id": session.public_id}, response_status=201,
                 policy_result="allow")
    for n in range(calls):
        record_event(session, capability="cart.add", method="POST", path="/api/cart/add",
                     params={"item_id": f"mug-{n}", "quantity": n + 1, "email": "a@b.c"},
                     response_status=200, policy_result="allow")
    return close_and_seal(session, "deleted", timezone.now(), method="DELETE", path="/api/session")


def current_public_key():
    return public_key_b64(signing_key().verify_key)


def test_a_sealed_artifact_verifies_with_the_published_key():
    artifact = sealed_artifact()
    verdict = verify(artifact, current_public_key())
    assert verdict.ok, verdict.failure
    assert [e["capability"] for e in artifact["events"]] == ["session.create", "cart.add", "cart.add", "cart.add",
                                                               "session.end"]
    assert [e["seq"] for e in artifact["events"]] == [1, 2, 3, 4, 5]
    assert artifact["public_key"].startswith("MCowBQYDK2VwAyEA")


def test_sensitive_params_are_stored_only_as_hashes():
    artifact = sealed_artifact(calls=1)
    params = artifact["events"][1]["params"]
    assert params["email"].startswith("sha256:") and "a@b.c" not in json.dumps(artifact)
    assert params["item_id"] == "mug-0"


def tamper(artifact, change):
    forged = copy.deepcopy(artifact)
    change(forged)
    return forged


TAMPERING = {
    "changed param": (lambda a: a["events"][1]["params"].update(quantity=99), "event 2 hash"),
    "reordered events": (lambda a: a["events"].insert(1, a["events"].pop(2)), "event 2 seq"),
    "removed event": (lambda a: a["events"].pop(2), "event 3 seq"),
    "edited timestamp": (lambda a: a["events"][2].update(timestamp="2020-01-01T00:00:00.000000Z"), "event 3 hash"),
    "truncated chain": (lambda a: a["events"].pop(), "closing"),
    "rehashed edit": (lambda a: _rehash_edit(a), "root_hash"),
    "forged root": (lambda a: a.update(root_hash="0" * 64), "root_hash"),
    "another session's id": (lambda a: a.update(session_id="ses_someone_else"), "session"),
    "another end": (lambda a: a.update(end_reason="expired"), "end_reason"),
    "rehashed broken link": (lambda a: _rehash(a["events"][2], prev_hash="0" * 64), "event 3 link"),
    "rehashed earlier timestamp": (lambda a: _rehash(a["events"][2], timestamp="2000-01-01T00:00:00.000000Z"),
                                   "event 3 time"),
    "rechained without its opening": (lambda a: _rechain(a, 0, capability="cart.view"), "opening"),
    "another format": (lambda a: a.update(format="agents-protocol-audit/2"), "format"),
    "another algorithm": (lambda a: a.update(algorithm="RS256"), "algorithm"),
    "another canonicalization": (lambda a: a.update(canonicalization="JSON.stringify"), "algorithm"),
}


def _rehash(event, **changes):
    event.update(changes)
    event["event_hash"] = event_hash(event)


def _rechain(artifact, position, **changes):
    artifact["events"][position].update(changes)
    previous_hash = ""
    for event in artifact["events"]:
        _rehash(event, prev_hash=previous_hash)
        previous_hash = event["event_hash"]


def _rehash_edit(artifact):
    event = artifact["events"][-1]
    event["policy_result"] = "allow:ended:forged"
    event["event_hash"] = event_hash(event)


@pytest.mark.parametrize("change", TAMPERING.values(), ids=TAMPERING.keys())
def test_every_tampering_is_detected_and_named(change):
    artifact = sealed_artifact()
    mutate, first_failing_check = change
    verdict = verify(tamper(artifact, mutate), current_public_key())
    assert not verdict.ok
    assert verdict.failure.startswith(first_failing_check), verdict.failure


def test_a_wrong_key_is_detected():
    artifact = sealed_artifact()
    stranger = public_key_b64(NaclSigningKey.generate().verify_key)
    verdict = verify(artifact, stranger)
    assert not verdict.ok and verdict.failure.startswith("signature")


def test_a_raw_32_byte_key_also_verifies():
    artifact = sealed_artifact()
    raw = base64.b64encode(bytes(signing_key().verify_key)).decode()
    assert verify(artifact, raw).ok


def test_an_artifact_signed_before_rotation_still_verifies_with_the_old_key(key_file):
    old_key = current_public_key()
    before = sealed_artifact()
    live = make_agent_session(audited=True)
    record_event(live, capability=SESSION_CREATE, method="POST", path="/s", params={},
                 response_status=201, policy_result="allow")
    rotate_key()
    assert current_public_key() != old_key
    assert verify(before, old_key).ok
    assert not verify(before, current_public_key()).ok
    live.refresh_from_db()
    assert live.end_reason == "rotated"
    rotated = live.audit_artifact.body
    assert verify(rotated, old_key).ok and rotated["events"][-1]["params"] == {"reason": "rotated"}
    assert SigningKey.objects.filter(retired_at__isnull=False).count() == 1
    assert verify(sealed_artifact(), current_public_key()).ok


def test_sealing_twice_returns_the_same_artifact_and_appends_nothing():
    artifact = sealed_artifact()
    session = AuditEvent.objects.get(event_id=artifact["events"][0]["event_id"]).session
    again = close_and_seal(session, "expired", timezone.now())
    assert again == artifact
    assert AuditEvent.objects.filter(session=session).count() == 5


def test_nothing_is_appended_after_the_end():
    artifact = sealed_artifact(calls=0)
    session = AuditEvent.objects.get(event_id=artifact["events"][0]["event_id"]).session
    late = record_event(session, capability="cart.view", method="GET", path="/x", params={},
                        response_status=200, policy_result="allow")
    assert late is None and AuditEvent.objects.filter(session=session).count() == 2


def test_an_append_from_a_stale_head_extends_the_current_one():
    session = make_agent_session(audited=True)
    stale = AgentSession.objects.get(pk=session.pk)  # read before the first append
    for caller, capability in [(session, SESSION_CREATE), (stale, "cart.view"), (session, "cart.add")]:
        record_event(caller, capability=capability, method="GET", path="/x", params={},
                     response_status=200, policy_result="allow")
    events = list(AuditEvent.objects.filter(session=session).order_by("seq"))
    assert [(e.seq, e.capability) for e in events] == [(1, SESSION_CREATE), (2, "cart.view"), (3, "cart.add")]
    assert [e.prev_hash for e in events] == ["", events[0].event_hash, events[1].event_hash]
    session.refresh_from_db()
    assert (session.event_count, session.last_event_hash) == (3, events[2].event_hash)


def test_the_key_file_is_private_and_stable(key_file):
    first = current_public_key()
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"
    assert current_public_key() == first


def test_a_key_file_replaced_within_one_timestamp_tick_is_read_again(key_file):
    first = current_public_key()
    old = key_file.stat()
    replacement = key_file.with_name("replacement")
    replacement.write_text(base64.b64encode(bytes(NaclSigningKey.generate())).decode())
    os.utime(replacement, ns=(old.st_atime_ns, old.st_mtime_ns))  # the same mtime as the old file
    os.replace(replacement, key_file)
    assert key_file.stat().st_mtime_ns == old.st_mtime_ns
    assert current_public_key() != first


def test_two_processes_share_one_key(tmp_path):
    env = site_env(tmp_path)
    script = ("import django; django.setup(); from agents_protocol.audit.signing import signing_key; "
              "from agents_protocol.audit.keys import public_key_b64; print(public_key_b64(signing_key().verify_key))")
    runs = [subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
            for _ in range(4)]
    keys = {run.communicate(timeout=60)[0].strip() for run in runs}
    assert len(keys) == 1 and keys.pop().startswith("MCowBQYDK2VwAyEA")
    assert oct((tmp_path / "audit_signing_key").stat().st_mode & 0o777) == "0o600"


def test_verify_command_names_the_first_failing_check(tmp_path):
    artifact = sealed_artifact()
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps({"ok": True, "data": artifact}))
    bad.write_text(json.dumps(tamper(artifact, TAMPERING["removed event"][0])))
    call_command("agents_audit", "verify", str(good), "--public-key", current_public_key())
    with pytest.raises(CommandError, match="event 3 seq"):
        call_command("agents_audit", "verify", str(bad))


def test_verify_without_a_key_uses_the_one_the_shop_publishes_even_with_no_database_here(tmp_path):
    """An agent's developer verifies a shop's artifact from any checkout of this project: no
    migrated database, no --public-key. The key is the one the shop publishes in agents.json, so
    an artifact re-signed with another key (and carrying it) is refused."""
    site = start_site(tmp_path / "shop", workers=1)
    try:
        agent = AgentClient(site.url)
        token = agent.start_session(agent_name="verifier-test")["session_token"]
        ok_data(agent.get(f"{API}/search", {"q": "mug"}))
        audit_url = ok_data(agent.delete(f"{API}/session"))["audit_url"]
        artifact = ok_data(requests.get(audit_url, headers={"Authorization": f"Bearer {token}"}, timeout=10))
        stranger = NaclSigningKey.generate()
        forged = {**artifact, "key_id": "someone-else", "public_key": public_key_b64(stranger.verify_key),
                  "signature": base64.b64encode(stranger.sign(artifact["root_hash"].encode()).signature).decode()}
        assert verify(forged, forged["public_key"]).ok  # consistent in itself: only the shop's key tells
        (tmp_path / "forged.json").write_text(json.dumps(forged))
        (tmp_path / "real.json").write_text(json.dumps(artifact))
        verifier = site_env(tmp_path / "verifier")  # never migrated

        def verify_with_command(source, *extra):
            return subprocess.run([sys.executable, "manage.py", "agents_audit", "verify", source, *extra],
                                  cwd=ROOT, env=verifier, capture_output=True, text=True, timeout=120)

        published = f"audit.public_key published at {site.url}/.well-known/agents.json"
        for source, extra in ((audit_url, (f"--token={token}",)), (str(tmp_path / "real.json"), ())):
            run = verify_with_command(source, *extra)
            assert run.returncode == 0, run.stderr
            assert f"Key: {published}" in run.stdout and "VALID" in run.stdout
        refused = verify_with_command(str(tmp_path / "forged.json"))
        assert refused.returncode != 0 and "signature" in refused.stderr and published in refused.stdout
        assert "the shop the artifact itself names" in refused.stdout  # a file: the shop is the artifact's word
        assert "the artifact names someone-else: signed before the shop rotated its key?" in refused.stdout
    finally:
        site.stop()


def test_the_inspector_pages_verifier_names_the_same_fields_as_this_one():
    """The page verifies in the browser with the same checks (agents_protocol/static/…/inspector.js)."""
    script = (ROOT / "agents_protocol" / "static" / "agents_protocol" / "inspector.js").read_text()

    def names(constant):
        listed = re.search(rf"const {constant} = \[(.*?)\];", script, re.S).group(1)
        return tuple(re.findall(r'"([a-z_]+)"', listed))

    assert names("ARTIFACT_FIELDS") == ARTIFACT_FIELDS
    assert names("EVENT_FIELDS") == tuple(EVENT_FIELDS)
