"""Scale-out: two gunicorn instances on different ports, as if on two hosts (each its own
DATA_DIR), sharing a real PostgreSQL (DATABASE_URL) and a real Redis (REDIS_URL).
"""
import base64
import json
import secrets
import socket

import psycopg
import pytest
import redis
import requests

from tests.api_client import API, SESSION_PATH, AgentClient, assert_error, ok_data
from tests.bursts import assert_exact, burst, fresh_window
from tests.servers import migrate, serve_site, set_rate_limit, site_env

ITEM = "mug-celadon"


@pytest.fixture(scope="module")
def shared(postgres_server, redis_server):
    """What every instance of one deployment shares: the backing services and two secrets."""
    return {
        "DATABASE_URL": postgres_server.create_database("acme_scale_out"),
        "REDIS_URL": redis_server,
        "SECRET_KEY": secrets.token_urlsafe(50),
        "AUDIT_SIGNING_KEY": base64.b64encode(secrets.token_bytes(32)).decode(),
    }


@pytest.fixture(scope="module")
def instances(tmp_path_factory, shared):
    env_a = site_env(tmp_path_factory.mktemp("host-a"), **shared)
    migrate(env_a)
    a = serve_site(env_a)
    b = serve_site(site_env(tmp_path_factory.mktemp("host-b"), **shared))
    assert a.manage("load_demo_catalog").returncode == 0
    yield a, b
    a.stop()
    b.stop()


def test_both_instances_report_a_healthy_database_and_cache(instances):
    for site in instances:
        response = requests.get(f"{site.url}/healthz", timeout=10)
        assert response.status_code == 200
        assert response.json() == {"ok": True, "instance": socket.gethostname(),
                                   "checks": {"database": "ok", "cache": "ok"}}


def test_a_session_created_on_a_fills_a_cart_read_on_b_and_ends_there(instances, shared):
    a, b = instances
    on_a = AgentClient(a.url)
    session = on_a.start_session(agent_name="scale-test")
    on_a.add_to_cart(ITEM, 2)

    on_b = AgentClient(b.url, token=session["session_token"])
    assert [(line["item_id"], line["quantity"]) for line in on_b.cart()["items"]] == [(ITEM, 2)]
    ok_data(on_b.delete(SESSION_PATH))
    assert_error(on_a.get(f"{API}/cart/view"), 401, "session_ended")

    with psycopg.connect(shared["DATABASE_URL"].replace("postgres://", "postgresql://")) as connection:
        stored = connection.execute(
            "SELECT count(*) FROM agents_protocol_agentsession WHERE public_id = %s", [session["session_id"]]
        ).fetchone()
    assert stored == (1,)


def test_a_configuration_change_shows_on_both_instances_at_once(instances):
    a, b = instances
    config = json.loads(a.manage("agents_config", "export").stdout)
    config["rate_limit"]["requests_per_minute"] = 42
    config["capabilities"] = [c for c in config["capabilities"] if c["name"] != "contact"]
    assert a.manage("agents_config", "import", "-", input=json.dumps(config)).returncode == 0

    # The same document everywhere, up to the origin it was asked from (the site URL is left empty).
    documents = [json.loads(requests.get(f"{site.url}/.well-known/agents.json", timeout=10).text
                            .replace(site.url, "https://shop.example")) for site in (a, b, a, b, a, b)]
    assert all(document == documents[0] for document in documents)
    assert documents[0]["rate_limit"]["requests_per_minute"] == 42
    assert "contact" not in [c["name"] for c in documents[0]["capabilities"]]


def alternating(calls_on_a, calls_on_b, count):
    return [(calls_on_a, calls_on_b)[n % 2] for n in range(count)]


def test_one_session_is_limited_exactly_across_both_instances(instances, shared):
    a, b = instances
    set_rate_limit(a, 20)
    token = AgentClient(a.url).start_session()["session_token"]

    def search_on(site):
        return lambda: requests.get(f"{site.url}{API}/search", params={"q": "mug"},
                                    headers={"Authorization": f"Bearer {token}"}, timeout=30)

    remaining = fresh_window(search_on(b))
    assert remaining == 19
    assert_exact(burst(alternating(search_on(a), search_on(b), remaining + 6)), allowed=remaining)

    keys = [key.decode() for key in redis.Redis.from_url(shared["REDIS_URL"]).keys("*")]
    assert any(":rl:" in key for key in keys)  # the counters live in Redis
    assert not any(token in key for key in keys)


def test_forged_forwarded_for_does_not_escape_the_address_limit_on_either_instance(instances):
    a, b = instances
    set_rate_limit(a, 15)

    def search_on(site):
        return lambda: requests.get(f"{site.url}{API}/search", params={"q": "bowl"},
                                    headers={"X-Forwarded-For": f"198.51.100.{secrets.randbelow(250)}"}, timeout=30)

    remaining = fresh_window(search_on(a))
    assert remaining == 14
    assert_exact(burst(alternating(search_on(a), search_on(b), remaining + 4)), allowed=remaining)


def test_nul_characters_anywhere_an_agent_can_put_them_are_refused_not_a_500(instances):
    """PostgreSQL refuses text holding NUL, which SQLite stores: each way such text could reach a
    query is refused first, with the envelope's 4xx."""
    a, _ = instances
    set_rate_limit(a, 10_000)  # the tests before spent this address's budget
    agent = AgentClient(a.url)
    agent.start_session(agent_name="nul-test")
    assert_error(agent.get(f"{API}/audit/ses_%00"), 404, "unknown_session")
    assert_error(agent.get(f"{API}/detail/mug%00"), 400, "invalid_params")
    assert_error(agent.get(f"{API}/search", {"q": "mug\x00"}), 400, "invalid_params")
    assert_error(agent.post(f"{API}/cart/add", {"item_id": "mug\x00"}), 400, "invalid_params")
    assert_error(AgentClient(a.url).post(SESSION_PATH, {"agent_name": "a\x00"}), 400, "invalid_params")
    inspected = requests.get(f"{a.url}/.well-known/agents/inspect/%00", timeout=10)
    assert inspected.status_code == 404
    assert requests.get(f"{a.url}/?category=mugs%00", timeout=10).status_code == 404  # the shop's own listing
