"""The session inspector, in process: inspect_url on every transport that creates
sessions, its JSON (calls, hints, headroom, cart, orders), the sealed artifact, and what it never
shows: the token, sensitive parameters in clear, another session, anything for a wrong secret."""
import hashlib
import json
import secrets
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.db import OperationalError
from django.utils import timezone

from acme.agents import AcmeProvider
from agents_protocol.audit import verify
from agents_protocol.inspector import state as inspector_state
from agents_protocol.models import AgentSession, AuditEvent, RateLimitConfig
from tests.api_client import API, IN_PROCESS_URL, AgentClient, assert_error, ok_data
from tests.factories import make_product
from tests.test_interop_mcp import initialize_message, post, rpc

INSPECT = "/.well-known/agents/inspect/"
TIMEOUT = 10


pytestmark = pytest.mark.usefixtures("key_file")  # a signing key of its own: tests/conftest.py


@pytest.fixture
def shop(http):
    """A product for sale; returns `http`, which reaches the site in process."""
    make_product(public_id="mug", slug="mug", name="Celadon mug", stock=10)
    return http


def start(http, **agent):
    client = AgentClient(django_client=http.django_client)
    created = client.start_session(**(agent or {"agent_name": "inspected", "agent_version": "0.1"}))
    return client, created


def state(http, inspect_url, after=None):
    params = {} if after is None else {"after": after}
    return http.get(f"{inspect_url}/state", params=params, timeout=TIMEOUT)


def state_data(http, inspect_url, after=None):
    return ok_data(state(http, inspect_url, after))


def secret_of(inspect_url):
    return urlsplit(inspect_url).path.removeprefix(INSPECT)


def test_session_create_answers_an_inspect_url_with_its_own_secret_kept_only_as_a_hash(shop):
    _, created = start(shop)
    _, other = start(shop)

    url = created["inspect_url"]
    assert url.startswith(f"{IN_PROCESS_URL}{INSPECT}")
    secret = secret_of(url)
    assert len(secret) >= 43  # 32 random bytes, base64url
    assert secret != created["session_token"] and secret != secret_of(other["inspect_url"])
    stored = AgentSession.objects.get(public_id=created["session_id"])
    assert stored.inspect_hash == hashlib.sha256(secret.encode()).hexdigest()
    row = json.dumps(list(AgentSession.objects.filter(pk=stored.pk).values()), default=str)
    assert secret not in row and created["session_token"] not in row


def test_mcp_initialize_answers_the_inspect_url_in_its_results_meta(shop):
    answer = post(f"{IN_PROCESS_URL}/mcp", initialize_message("mcp-inspected"), http=shop)
    assert answer.status_code == 200, answer.text
    meta = answer.json()["result"]["_meta"]["agents-protocol/session"]
    assert meta["inspect_url"].startswith(f"{IN_PROCESS_URL}{INSPECT}")
    assert secret_of(meta["inspect_url"]) != answer.headers["Mcp-Session-Id"]
    assert "inspect_url" in answer.json()["result"]["instructions"]

    session_id = answer.headers["Mcp-Session-Id"]
    post(f"{IN_PROCESS_URL}/mcp", rpc("tools/call", {"name": "cart.add", "arguments": {"item_id": "mug"}}), session_id,
         http=shop)
    refused = json.loads(post(f"{IN_PROCESS_URL}/mcp",
                              rpc("tools/call", {"name": "cart.add", "arguments": {"item_id": "no-such"}}),
                              session_id, http=shop).json()["result"]["content"][0]["text"])

    watched = state_data(shop, meta["inspect_url"])
    assert watched["session"]["session_id"] == meta["session_id"]
    assert watched["session"]["agent_name"] == "mcp-inspected"
    assert [(c["capability"], c["error_code"]) for c in watched["calls"]] == [
        ("session.create", None), ("cart.add", None), ("cart.add", refused["code"])]
    assert watched["calls"][2]["hint"] == refused["error"]
    assert [item["item_id"] for item in watched["cart"]["data"]["items"]] == ["mug"]


def test_every_call_appears_in_order_with_its_outcome_and_the_sentence_the_agent_was_told(shop):
    client, created = start(shop)
    client.get(f"{API}/search", {"q": "mug"})
    client.add_to_cart("mug", 2)
    refused = client.post(f"{API}/cart/add", {"item_id": "no-such-item", "quantity": 1})
    told = refused.json()

    calls = state_data(shop, created["inspect_url"])["calls"]
    assert [(c["seq"], c["capability"], c["status"], c["error_code"]) for c in calls] == [
        (1, "session.create", 201, None), (2, "search", 200, None), (3, "cart.add", 200, None),
        (4, "cart.add", refused.status_code, told["code"]),
    ]
    assert calls[1]["params"]["q"] == "mug"
    assert calls[2]["params"] == {"item_id": "mug", "quantity": 2}
    assert calls[3]["hint"] == told["error"] and told["error"]
    assert [c["hint"] for c in calls[:3]] == ["", "", ""]
    assert (calls[2]["method"], calls[2]["path"]) == ("POST", f"{API}/cart/add")

    newer = state_data(shop, created["inspect_url"], after=3)["calls"]
    assert [c["seq"] for c in newer] == [4]


def test_the_json_never_shows_the_token_or_a_sensitive_parameter_in_clear(shop):
    client, created = start(shop, agent_name="careful")
    sensitive = {"name": "Ada Lovelace", "email": "ada.lovelace@example.com", "message": "My secret plans for the vase"}
    ok_data(client.post(f"{API}/contact", sensitive))
    refused = client.post(f"{API}/contact", {**sensitive, "email": "not-an-address-but-private"})
    assert refused.status_code == 400

    answer = state(shop, created["inspect_url"])
    text = answer.text
    for value in [created["session_token"], *sensitive.values(), "not-an-address-but-private"]:
        assert value not in text
    contact = [c for c in answer.json()["data"]["calls"] if c["capability"] == "contact"]
    assert len(contact) == 2
    assert all(contact[0]["params"][name].startswith("sha256:") for name in sensitive)
    assert all(value.startswith("sha256:") for value in contact[1]["params"].values())  # a refused call's, if any
    assert contact[1]["error_code"] == "invalid_params" and "email" in contact[1]["hint"]


def test_a_wrong_secret_gets_the_same_404_as_no_session_at_all(shop):
    _, created = start(shop)
    unknown = f"{IN_PROCESS_URL}{INSPECT}{secrets.token_urlsafe(32)}"
    token_as_secret = f"{IN_PROCESS_URL}{INSPECT}{created['session_token']}"
    odd_secrets = [f"{IN_PROCESS_URL}{INSPECT}{secret}"
                   for secret in ("not a slug!", "%00", "\u00fcn\u00efcode", "x" * 600)]
    for url in (unknown, token_as_secret, *odd_secrets):
        page = shop.get(url, timeout=TIMEOUT)
        assert page.status_code == 404
        assert created["session_id"] not in page.text
        assert_error(state(shop, url), 404, "unknown_session")
        assert_error(shop.get(f"{url}/artifact", timeout=TIMEOUT), 404, "unknown_session")
    assert state(shop, unknown).json() == state(shop, token_as_secret).json()


def test_each_secret_shows_its_own_session_only(shop):
    first, first_created = start(shop, agent_name="first")
    second, second_created = start(shop, agent_name="second")
    first.add_to_cart("mug", 1)
    second.get(f"{API}/search", {"q": "vase"})

    seen = state_data(shop, second_created["inspect_url"])
    assert seen["session"]["session_id"] == second_created["session_id"]
    assert [c["capability"] for c in seen["calls"]] == ["session.create", "search"]
    assert seen["cart"]["data"]["items"] == []
    assert first_created["session_id"] not in json.dumps(seen)


def test_headroom_counts_the_agents_calls_and_not_the_inspectors_polls(shop):
    limit = RateLimitConfig.load().requests_per_minute
    client, created = start(shop)
    for _ in range(3):
        client.get(f"{API}/cart/view")

    for _ in range(3):
        headroom = state_data(shop, created["inspect_url"])["rate_limit"]
        assert headroom["limit"] == limit
        assert headroom["remaining"] == limit - 3
        assert headroom["reset_at"] > timezone.now().timestamp()


def test_the_cart_and_the_handoffs_order_are_what_the_shop_answers(shop):
    client, created = start(shop)
    client.add_to_cart("mug", 2)
    seen = state_data(shop, created["inspect_url"])
    assert [(i["item_id"], i["quantity"]) for i in seen["cart"]["data"]["items"]] == [("mug", 2)]
    assert seen["orders"]["data"] == {"orders": []}

    handoff = ok_data(client.post(f"{API}/checkout"))
    orders = state_data(shop, created["inspect_url"])["orders"]["data"]["orders"]
    assert [(o["order_id"], o["status"]) for o in orders] == [(handoff["order_id"], "pending")]
    assert handoff["checkout_url"] not in state(shop, created["inspect_url"]).text


def test_a_failing_panel_leaves_the_others_and_a_database_outage_is_the_envelope(shop, monkeypatch):
    """The page reads JSON: a shop bug in the cart leaves the calls shown, and a database outage
    is the API's 503 envelope, never the site's HTML error page."""
    client, created = start(shop)
    client.add_to_cart("mug", 1)

    def broken(*args, **kwargs):
        raise ValueError("a bug in the shop's cart")

    monkeypatch.setattr(AcmeProvider, "cart_view", broken)
    seen = state_data(shop, created["inspect_url"])
    assert seen["cart"]["code"] == "internal_error" and "cart.add" in [c["capability"] for c in seen["calls"]]

    def database_gone(*args, **kwargs):
        raise OperationalError("the database went away")

    monkeypatch.setattr(inspector_state, "calls_after", database_gone)
    answer = state(shop, created["inspect_url"])
    assert_error(answer, 503, "backend_unavailable")
    assert answer.headers["Content-Type"].startswith("application/json")


def test_the_sealed_artifact_is_a_download_once_the_session_ended_and_verifies(shop):
    client, created = start(shop)
    client.add_to_cart("mug", 1)
    artifact_url = f"{created['inspect_url']}/artifact"
    live = assert_error(shop.get(artifact_url, timeout=TIMEOUT), 425, "session_live")
    assert live["error"]
    assert state_data(shop, created["inspect_url"])["session"]["live"] is True

    ended = ok_data(client.delete(f"{API}/session"))
    seen = state_data(shop, created["inspect_url"])
    assert seen["session"]["live"] is False and seen["session"]["end_reason"] == "deleted"
    assert seen["calls"][-1]["capability"] == "session.end"
    assert seen["rate_limit"] is None

    download = shop.get(artifact_url, timeout=TIMEOUT)
    assert download.status_code == 200
    assert download.headers["Content-Disposition"] == f'attachment; filename="{created["session_id"]}.audit.json"'
    artifact = download.json()
    from_audit_endpoint = shop.get(ended["audit_url"], headers={"Authorization": f"Bearer {client.token}"},
                                   timeout=TIMEOUT).json()["data"]
    assert artifact == from_audit_endpoint
    published = shop.get(f"{IN_PROCESS_URL}/.well-known/agents.json", timeout=TIMEOUT).json()["audit"]["public_key"]
    assert verify(artifact, published).ok
    assert all("hint" not in event for event in artifact["events"])


def test_a_session_that_expired_untouched_is_sealed_when_inspected(shop):
    _, created = start(shop)
    AgentSession.objects.filter(public_id=created["session_id"]).update(
        created_at=timezone.now() - timedelta(hours=1), expires_at=timezone.now() - timedelta(minutes=1))
    seen = state_data(shop, created["inspect_url"])
    assert seen["session"]["live"] is False and seen["session"]["end_reason"] == "expired"
    assert shop.get(f"{created['inspect_url']}/artifact", timeout=TIMEOUT).status_code == 200


def test_bad_input_gets_the_envelope_not_a_page(shop):
    _, created = start(shop)
    for after in ("-1", "x", "1.5", "9" * 20):
        body = assert_error(state(shop, created["inspect_url"], after=after), 400, "invalid_params")
        assert "after" in body["fields"]
    for method in ("POST", "PUT", "DELETE"):
        for suffix in ("/state", "/artifact"):
            answer = shop.request(method, f"{created['inspect_url']}{suffix}", timeout=TIMEOUT)
            assert_error(answer, 405, "method_not_allowed")
    assert AuditEvent.objects.filter(session__public_id=created["session_id"]).count() == 1


def test_the_page_is_private_and_runs_under_a_strict_policy(shop):
    _, created = start(shop)
    page = shop.get(created["inspect_url"], timeout=TIMEOUT)
    assert page.status_code == 200
    assert page.headers["Content-Type"].startswith("text/html")
    policy = page.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy and "style-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert page.headers["Cache-Control"] == "no-store"
    assert created["session_id"] in page.text
    assert created["session_token"] not in page.text
    assert "<script>" not in page.text and "style=" not in page.text
