"""Audit trails in process (and over real HTTP through gunicorn workers): what an agent did, sealed, fetched
by its holder, verified offline."""
import json
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
import requests
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils import timezone

from agents_protocol.audit import lifecycle, verify
from agents_protocol.models import AgentSession, AuditConfig
from cart.models import Order
from catalog.demo import load_demo_catalog
from tests.api_client import IN_PROCESS_URL
from tests.factories import make_agent_session
from tests.servers import start_site

API = "/.well-known/agents/api"


pytestmark = pytest.mark.usefixtures("key_file")  # a signing key of its own: tests/conftest.py


class Agent:
    def __init__(self, base_url, http=requests):
        """`http`: requests, or tests/api_client.py's InProcessRequests."""
        self.base_url = base_url
        self.http = http
        self.token = None

    def call(self, method, path, **kwargs):
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return self.http.request(method, self.base_url + API + path, headers=headers, timeout=30, **kwargs)

    def start(self):
        created = self.call("POST", "/session", json={"agent_name": "auditor", "purpose": "testing"}).json()["data"]
        self.token, self.session_id = created["session_token"], created["session_id"]
        return created

    def published_key(self):
        return self.http.get(f"{self.base_url}/.well-known/agents.json", timeout=10).json()["audit"]["public_key"]


@pytest.fixture
def agent(http):
    load_demo_catalog()
    return Agent(IN_PROCESS_URL, http)


def test_the_documents_announce_audit_with_a_public_key(http):
    document = http.get(f"{IN_PROCESS_URL}/.well-known/agents.json", timeout=10).json()
    assert document["audit"]["enabled"] is True
    assert document["audit"]["public_key"].startswith("MCowBQYDK2VwAyEA")
    txt = http.get(f"{IN_PROCESS_URL}/.well-known/agents.txt", timeout=10).text
    assert "Audit: true" in txt
    assert f"Audit-Endpoint: {IN_PROCESS_URL}{API}/audit/:session_id" in txt


def test_a_refused_call_with_a_path_longer_than_the_column_is_recorded_to_its_first_500_characters(agent):
    """PostgreSQL refuses a row whose path is too long, and the event would be lost with it."""
    agent.start()
    refused = agent.call("GET", "/detail/" + "x" * 3000)
    assert refused.status_code == 400
    ended = agent.call("DELETE", "/session").json()["data"]
    trail = agent.http.get(ended["audit_url"], headers={"Authorization": f"Bearer {agent.token}"}, timeout=10).json()
    (detail,) = [event for event in trail["data"]["events"] if event["capability"] == "detail"]
    assert detail["path"] == (API + "/detail/" + "x" * 3000)[:500] and detail["response_status"] == 400
    assert verify(trail["data"], agent.published_key()).ok


def test_a_refused_call_with_nul_in_its_path_is_recorded_with_it_escaped(agent):
    """PostgreSQL's text columns refuse NUL: the row, and the event with it, would be lost."""
    agent.start()
    assert agent.call("GET", "/detail/abc%00def").status_code in (400, 404)
    ended = agent.call("DELETE", "/session").json()["data"]
    trail = agent.http.get(ended["audit_url"], headers={"Authorization": f"Bearer {agent.token}"}, timeout=10).json()
    (detail,) = [event for event in trail["data"]["events"] if event["capability"] == "detail"]
    assert detail["path"] == f"{API}/detail/abc%00def"


def test_a_session_trail_records_every_call_in_order_and_verifies(agent):
    agent.start()
    agent.call("GET", "/search", params={"q": "mug"})
    agent.call("POST", "/cart/add", json={"item_id": "mug-celadon", "quantity": 2})
    agent.call("POST", "/cart/add", json={"item_id": "mug-celadon", "quantity": -1})
    agent.call("POST", "/contact", json={"name": "Ada", "email": "ada@example.com", "message": "Hello there"})
    AgentSession.objects.filter(public_id=agent.session_id).update(expires_at=timezone.now() + timedelta(seconds=300))
    live = agent.call("GET", f"/audit/{agent.session_id}")
    assert live.status_code == 425 and live.json()["code"] == "session_live"
    assert 290 <= int(live.headers["Retry-After"]) <= 300  # until the session ends

    ended = agent.call("DELETE", "/session").json()["data"]
    artifact_response = agent.http.get(ended["audit_url"], headers={"Authorization": f"Bearer {agent.token}"},
                                       timeout=10)
    assert artifact_response.status_code == 200
    artifact = artifact_response.json()["data"]

    assert verify(artifact, agent.published_key()).ok
    events = artifact["events"]
    assert [(e["capability"], e["response_status"]) for e in events] == [
        ("session.create", 201), ("search", 200), ("cart.add", 200), ("cart.add", 400),
        ("contact", 200), ("session.end", 200),
    ]
    assert events[3]["policy_result"] == "deny:invalid_params"
    # The opening event names the session and the site (its URL, as both spec branches show it), so
    # the signed chain cannot be passed off as another session's or another site's.
    assert events[0]["params"] == {"agent_name": "auditor", "purpose": "testing", "session_id": agent.session_id,
                                   "site": agent.base_url}
    assert artifact["site"] == agent.base_url
    relabelled = {**artifact, "session_id": "ses_someone_else"}
    assert verify(relabelled, agent.published_key()).failure.startswith("session")
    elsewhere = {**artifact, "site": "https://another-shop.example"}
    assert verify(elsewhere, agent.published_key()).failure.startswith("site")
    assert events[2]["params"] == {"item_id": "mug-celadon", "quantity": 2}
    assert events[4]["params"]["email"].startswith("sha256:")
    assert "ada@example.com" not in artifact_response.text and agent.token not in artifact_response.text
    assert events[-1]["params"] == {"reason": "deleted"}


def test_each_change_is_recorded_once(agent):
    agent.start()
    agent.call("POST", "/cart/add", json={"item_id": "mug-celadon", "quantity": 2})
    agent.call("PUT", "/cart/update", json={"item_id": "mug-celadon", "quantity": 3})
    agent.call("POST", "/cart/add", json={"item_id": "cereal-bowl-celadon", "quantity": 1})
    agent.call("DELETE", "/cart/remove", json={"item_id": "cereal-bowl-celadon"})
    assert agent.call("POST", "/checkout").status_code == 200
    artifact = agent.call("DELETE", "/session").json()["data"]
    events = agent.http.get(artifact["audit_url"], headers={"Authorization": f"Bearer {agent.token}"},
                            timeout=10).json()["data"]["events"]
    assert [(e["seq"], e["capability"], e["policy_result"]) for e in events] == [
        (1, "session.create", "allow"), (2, "cart.add", "allow"), (3, "cart.update", "allow"),
        (4, "cart.add", "allow"), (5, "cart.remove", "allow"), (6, "checkout", "allow"),
        (7, "session.end", "allow:ended:deleted"),
    ]


@pytest.fixture
def audit_store_refuses():
    """Make the database refuse audit events of one capability, as a full disk or a broken store would."""
    def refuse(capability):
        with connection.cursor() as cursor:
            cursor.execute(
                "CREATE TRIGGER audit_store_refuses BEFORE INSERT ON agents_protocol_auditevent"
                f" WHEN NEW.capability = '{capability}' BEGIN SELECT RAISE(ABORT, 'the audit store refused'); END"
            )
    yield refuse
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER IF EXISTS audit_store_refuses")


CHANGES = [
    ("cart.add", "POST", "/cart/add", {"item_id": "mug-celadon", "quantity": 1}),
    ("cart.update", "PUT", "/cart/update", {"item_id": "mug-celadon", "quantity": 5}),
    ("cart.remove", "DELETE", "/cart/remove", {"item_id": "mug-celadon"}),
    ("checkout", "POST", "/checkout", None),
]


@pytest.mark.django_db(transaction=True)  # the failed write must end the app's own transaction, not a savepoint
@pytest.mark.parametrize("capability, method, path, body", CHANGES)
def test_a_change_whose_audit_event_cannot_be_stored_does_not_happen(agent, audit_store_refuses,
                                                                     capability, method, path, body):
    agent.start()
    agent.call("POST", "/cart/add", json={"item_id": "mug-celadon", "quantity": 2})
    audit_store_refuses(capability)
    refused = agent.call(method, path, json=body)
    assert refused.status_code == 500 and refused.json()["code"] == "internal_error"
    cart = agent.call("GET", "/cart/view").json()["data"]
    assert [(item["item_id"], item["quantity"]) for item in cart["items"]] == [("mug-celadon", 2)]
    assert not Order.objects.exists()


def test_only_the_token_holder_can_fetch_a_trail(agent):
    agent.start()
    agent.call("DELETE", "/session")
    other = Agent(agent.base_url, agent.http)
    other.start()
    stolen = other.call("GET", f"/audit/{agent.session_id}")
    assert stolen.status_code == 404 and stolen.json()["code"] == "unknown_session"
    anonymous = agent.http.get(f"{agent.base_url}{API}/audit/{agent.session_id}", timeout=10)
    assert anonymous.status_code == 401
    assert other.call("GET", "/audit/ses_doesnotexist").status_code == 404


def test_an_expired_session_is_sealed_when_its_trail_is_asked_for(agent):
    agent.start()
    agent.call("GET", "/cart/view")
    AgentSession.objects.filter(public_id=agent.session_id).update(expires_at=timezone.now() - timedelta(seconds=1))
    response = agent.call("GET", f"/audit/{agent.session_id}")
    assert response.status_code == 200
    artifact = response.json()["data"]
    assert artifact["end_reason"] == "expired" and artifact["events"][-1]["params"] == {"reason": "expired"}
    assert verify(artifact, agent.published_key()).ok


def test_seal_expired_and_prune_commands(agent, settings):
    agent.start()
    AgentSession.objects.filter(public_id=agent.session_id).update(expires_at=timezone.now() - timedelta(days=40))
    call_command("agents_audit", "seal-expired")
    assert AgentSession.objects.get(public_id=agent.session_id).audit_artifact.body["end_reason"] == "expired"
    assert agent.call("GET", f"/audit/{agent.session_id}").status_code == 200
    call_command("agents_audit", "prune")
    assert agent.call("GET", f"/audit/{agent.session_id}").status_code == 404


def test_a_session_that_cannot_be_sealed_holds_up_neither_the_others_nor_pruning(db, monkeypatch, caplog):
    stuck, other = make_agent_session(), make_agent_session()
    AgentSession.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    seal = lifecycle.close_and_seal

    def failing_for_one(session, *args, **kwargs):
        if session.pk == stuck.pk:
            raise MemoryError("an artifact too large to build")
        return seal(session, *args, **kwargs)

    monkeypatch.setattr(lifecycle, "close_and_seal", failing_for_one)
    call_command("agents_prune")
    assert AgentSession.objects.get(pk=other.pk).end_reason == "expired"
    assert AgentSession.objects.get(pk=stuck.pk).ended_at is None  # left for the next run
    assert stuck.public_id in caplog.text


def test_with_audit_off_nothing_is_recorded_or_served(agent):
    config = AuditConfig.load()
    config.enabled = False
    config.save()
    agent.start()
    agent.call("GET", "/cart/view")
    assert agent.call("GET", f"/audit/{agent.session_id}").status_code == 404
    assert AgentSession.objects.get(public_id=agent.session_id).audit_events.count() == 0
    document = agent.http.get(f"{agent.base_url}/.well-known/agents.json", timeout=10).json()
    assert document["audit"] == {"enabled": False, "endpoint": f"{API}/audit/:session_id"}


def test_a_session_made_with_audit_off_names_no_trail_when_it_ends_after_audit_is_on(agent):
    config = AuditConfig.load()
    config.enabled = False
    config.save()
    agent.start()
    config.enabled = True
    config.save()
    ended = agent.call("DELETE", "/session").json()["data"]
    assert ended["ended"] is True
    assert ended["audit_url"] is None
    assert agent.call("GET", f"/audit/{agent.session_id}").status_code == 404


def test_admin_shows_the_trail_read_only_and_offers_the_artifact(agent, admin_user):
    agent.start()
    agent.call("DELETE", "/session")
    session = AgentSession.objects.get(public_id=agent.session_id)
    client = Client()
    client.force_login(admin_user)
    page = client.get(f"/admin/agents_protocol/agentsession/{session.pk}/change/").content.decode()
    assert "session.create" in page and "session.end" in page and "token_hash" not in page
    download = client.get(f"/admin/agents_protocol/agentsession/{session.pk}/artifact.json")
    assert download.status_code == 200 and json.loads(download.content)["session_id"] == agent.session_id
    assert client.post(f"/admin/agents_protocol/agentsession/{session.pk}/change/", {}).status_code == 403
    keys = client.get("/admin/agents_protocol/signingkey/").content.decode()
    assert agent.published_key() in keys

    get_user_model().objects.create_user("clerk", password="a-long-test-password", is_staff=True)
    clerk = Client()
    clerk.force_login(get_user_model().objects.get(username="clerk"))  # staff, without any permission
    assert clerk.get(f"/admin/agents_protocol/agentsession/{session.pk}/artifact.json").status_code == 403


@pytest.fixture(scope="module")
def gunicorn_site(tmp_path_factory):
    """One gunicorn with three workers for the module: each test works in sessions of its own."""
    site = start_site(tmp_path_factory.mktemp("audit-site"), workers=3)
    yield site
    site.stop()


def test_parallel_calls_of_one_session_through_several_workers_never_fork_the_chain(gunicorn_site):
    agent = Agent(gunicorn_site.url)
    agent.start()
    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(lambda n: agent.call("GET", "/cart/view").status_code, range(40)))
    assert statuses == [200] * 40
    artifact = requests.get(agent.call("DELETE", "/session").json()["data"]["audit_url"],
                            headers={"Authorization": f"Bearer {agent.token}"}, timeout=10).json()["data"]
    published_key = agent.published_key()
    assert [e["seq"] for e in artifact["events"]] == list(range(1, 43))
    assert verify(artifact, published_key).ok


def test_rotation_ends_live_sessions_and_old_trails_still_verify(gunicorn_site):
    before = Agent(gunicorn_site.url)
    before.start()
    old_key = before.published_key()
    old_artifact = requests.get(before.call("DELETE", "/session").json()["data"]["audit_url"],
                                headers={"Authorization": f"Bearer {before.token}"}, timeout=10).json()["data"]
    live = Agent(gunicorn_site.url)
    live.start()
    result = gunicorn_site.manage("agents_keys", "rotate")
    assert result.returncode == 0, result.stderr
    new_key = live.published_key()
    after = live.call("GET", "/cart/view")
    rotated = live.call("GET", f"/audit/{live.session_id}").json()["data"]
    assert new_key != old_key
    assert after.status_code == 401 and after.json()["code"] == "session_ended"
    assert rotated["end_reason"] == "rotated" and verify(rotated, old_key).ok
    assert verify(old_artifact, old_key).ok and not verify(old_artifact, new_key).ok
