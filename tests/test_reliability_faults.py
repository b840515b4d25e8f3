"""Faults, for real: PostgreSQL stopped and started under a serving gunicorn, Redis stopped and
started under a scale-out instance, gunicorn killed and restarted in the middle of a session.

The answers during an outage are 503 JSON envelopes with Retry-After (never an HTML 500),
and the site recovers by itself when the backend returns.
"""
import base64
import secrets
import time

import psycopg
import pytest
import requests

from agents_protocol.audit import verify
from tests.api_client import API, SESSION_PATH, AgentClient, assert_error, ok_data
from tests.servers import migrate, serve_site, site_env, start_site

RECOVERY_ATTEMPTS = 40  # × 0.5 s


def assert_unavailable(response):
    assert_error(response, 503, "backend_unavailable")
    assert response.headers["Retry-After"] == "5"
    assert response.headers["Content-Type"] == "application/json; charset=utf-8"


def until_answered(call):
    """The first answer under 500 of up to RECOVERY_ATTEMPTS calls (recovery takes a reconnect)."""
    for _attempt in range(RECOVERY_ATTEMPTS):
        response = call()
        if response.status_code < 500:
            return response
        assert_unavailable(response)
        time.sleep(0.5)
    pytest.fail("the site did not recover")


def record_count(database_url):
    with psycopg.connect(database_url.replace("postgres://", "postgresql://")) as connection:
        return connection.execute("SELECT count(*) FROM agents_protocol_idempotencyrecord").fetchone()[0]


@pytest.fixture
def on_postgres(tmp_path, postgres_server):
    env = site_env(tmp_path, DATABASE_URL=postgres_server.create_database(f"acme_fault_{secrets.token_hex(4)}"))
    migrate(env)
    site = serve_site(env, workers=2)
    assert site.manage("load_demo_catalog").returncode == 0
    yield site
    site.stop()


def test_a_stopped_database_is_a_503_envelope_and_the_site_recovers_when_it_returns(on_postgres, postgres_server):
    agent = AgentClient(on_postgres.url)
    agent.start_session()
    agent.add_to_cart("mug-celadon", 1)

    postgres_server.stop()
    try:
        assert_unavailable(agent.get(f"{API}/search", {"q": "mug"}))
        assert_unavailable(agent.post(f"{API}/cart/add", {"item_id": "mug-celadon"}))
        assert_unavailable(agent.post(SESSION_PATH))
        assert_unavailable(requests.post(f"{on_postgres.url}/.well-known/agents/pactspec/detail", json={}, timeout=30))
        # The JSON-RPC transports answer in their protocol: -32603, for the request's id.
        message = {"jsonrpc": "2.0", "id": 9, "method": "SendMessage"}
        a2a = requests.post(f"{on_postgres.url}/.well-known/agents/a2a", json=message, timeout=30)
        assert a2a.status_code == 200 and a2a.json()["id"] == 9 and a2a.json()["error"]["code"] == -32603
        mcp = requests.post(f"{on_postgres.url}/mcp", json={**message, "method": "tools/list"}, timeout=30)
        assert mcp.status_code == 503 and mcp.headers["Retry-After"] == "5"
        assert mcp.json()["id"] == 9 and mcp.json()["error"]["data"] == {"code": "backend_unavailable", "status": 503}
        page = requests.get(f"{on_postgres.url}/", timeout=30)
        assert page.status_code == 503 and page.headers["Retry-After"] == "5"
        assert page.headers["Content-Type"].startswith("text/html") and "Back in a moment" in page.text
        health = requests.get(f"{on_postgres.url}/healthz", timeout=30)
        assert health.status_code == 503 and health.json()["checks"]["database"].startswith("failed")
    finally:
        postgres_server.start()

    assert ok_data(until_answered(lambda: agent.get(f"{API}/search", {"q": "mug"})))["results"]
    assert [(line["item_id"], line["quantity"]) for line in agent.cart()["items"]] == [("mug-celadon", 1)]


@pytest.fixture
def scale_out_instance(tmp_path, postgres_server, own_redis_server):
    env = site_env(tmp_path, DATABASE_URL=postgres_server.create_database(f"acme_cache_{secrets.token_hex(4)}"),
                   REDIS_URL=own_redis_server.url, SECRET_KEY=secrets.token_urlsafe(50))
    migrate(env)
    site = serve_site(env, workers=2)
    assert site.manage("load_demo_catalog").returncode == 0
    yield site
    site.stop()


def test_redis_down_refuses_every_api_call_with_503_stores_no_key_and_recovers(scale_out_instance, own_redis_server):
    site = scale_out_instance
    agent = AgentClient(site.url)
    agent.start_session()
    add = {"item_id": "mug-celadon", "quantity": 1}
    keyed = {"Idempotency-Key": "during-outage"}

    own_redis_server.stop()
    try:
        assert_unavailable(agent.post(f"{API}/cart/add", add, headers=keyed))
        assert_unavailable(agent.get(f"{API}/search", {"q": "mug"}))
        assert requests.get(f"{site.url}/healthz", timeout=30).status_code == 503
        # Discovery documents are not rate limited and come from the database: still served.
        assert requests.get(f"{site.url}/.well-known/agents.json", timeout=30).status_code == 200
    finally:
        own_redis_server.start()
    assert record_count(site.env["DATABASE_URL"]) == 0  # refused before the key was claimed

    first = until_answered(lambda: agent.post(f"{API}/cart/add", add, headers=keyed))
    assert ok_data(first)["quantity"] == 1 and "Idempotent-Replayed" not in first.headers
    again = agent.post(f"{API}/cart/add", add, headers=keyed)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert [(line["item_id"], line["quantity"]) for line in agent.cart()["items"]] == [("mug-celadon", 1)]


def test_a_session_survives_a_killed_and_restarted_server_and_its_sealed_trail_verifies(tmp_path):
    site = start_site(tmp_path, workers=2)
    assert site.manage("load_demo_catalog").returncode == 0
    agent = AgentClient(site.url)
    session = agent.start_session(agent_name="restart-test")
    agent.add_to_cart("mug-celadon", 2)
    public_key = requests.get(f"{site.url}/.well-known/agents.json", timeout=10).json()["audit"]["public_key"]
    site.process.kill()  # no graceful shutdown: a crash
    site.process.wait(timeout=10)

    site = start_site(tmp_path, workers=2)
    try:
        agent.base_url = site.url
        assert [(line["item_id"], line["quantity"]) for line in agent.cart()["items"]] == [("mug-celadon", 2)]
        agent.add_to_cart("mug-celadon", 1)
        audit_url = ok_data(agent.delete(SESSION_PATH))["audit_url"]
        artifact = ok_data(requests.get(audit_url, headers={"Authorization": f"Bearer {agent.token}"}, timeout=10))
        assert requests.get(f"{site.url}/.well-known/agents.json", timeout=10).json()["audit"]["public_key"] == public_key
    finally:
        site.stop()

    assert artifact["session_id"] == session["session_id"]
    assert [e["capability"] for e in artifact["events"]] == [
        "session.create", "cart.add", "cart.view", "cart.add", "session.end"]
    assert verify(artifact, public_key).ok
    assert base64.b64decode(artifact["signature"])
