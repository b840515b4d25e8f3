"""Parallel agents over real HTTP, in both deployment shapes:

- embedded: one gunicorn with two workers on SQLite and diskcache in its DATA_DIR;
- scale-out: two gunicorn instances (two workers each) on a real PostgreSQL and a real Redis,
  the calls of one burst alternating between them.

Each site trusts one proxy (TRUSTED_PROXY_COUNT=1) and each test plays that proxy with its
own X-Forwarded-For address, so the tests' max_sessions budgets never mix.
"""
import itertools
import secrets
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import psycopg
import pytest
import requests

from agents_protocol.audit.verification import verify
from agents_protocol.core.defaults import MAX_SESSIONS
from tests.api_client import API, SESSION_PATH
from tests.servers import migrate, serve_site, set_rate_limit, site_env

TIMEOUT = 60
CREATE_PRODUCTS = """
from decimal import Decimal
from catalog.models import Category, Product
plates = Category.objects.create(name="Plates", slug="plates")
for public_id in ("plate-a", "plate-b"):
    Product.objects.create(public_id=public_id, name=public_id, slug=public_id, category=plates,
                           price=Decimal("12.50"), currency="USD", stock=500)
"""
_addresses = (f"203.0.113.{n}" for n in itertools.count(10))


@dataclass
class Deployment:
    urls: list
    database: str  # a SQLite path or a PostgreSQL URL
    turn: itertools.count = field(default_factory=itertools.count)

    def next_url(self):
        return self.urls[next(self.turn) % len(self.urls)]

    def query(self, sql, params=()):
        """Rows of a read-only SQL query, run on the deployment's database directly."""
        if self.database.startswith("postgres"):
            with psycopg.connect(self.database.replace("postgres://", "postgresql://")) as connection:
                return connection.execute(sql.replace("?", "%s"), params).fetchall()
        with sqlite3.connect(self.database, timeout=20) as connection:
            return connection.execute(sql, params).fetchall()


def start(env, instances):
    migrate(env)
    sites = [serve_site(env, workers=2) for _ in range(instances)]
    assert sites[0].manage("shell", "-v0", "-c", CREATE_PRODUCTS).returncode == 0
    set_rate_limit(sites[0], 1000)
    return sites


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("embedded")
    sites = start(site_env(data_dir, TRUSTED_PROXY_COUNT="1", CART_MAX_QUANTITY="100"), instances=1)
    yield Deployment([site.url for site in sites], str(data_dir / "db.sqlite3"))
    for site in sites:
        site.stop()


@pytest.fixture(scope="module")
def scale_out(tmp_path_factory, postgres_server, redis_server):
    database = postgres_server.create_database("acme_reliability")
    env = site_env(tmp_path_factory.mktemp("scale-out"), TRUSTED_PROXY_COUNT="1", CART_MAX_QUANTITY="100",
                   DATABASE_URL=database, REDIS_URL=redis_server, SECRET_KEY=secrets.token_urlsafe(50))
    sites = start(env, instances=2)
    yield Deployment([site.url for site in sites], database)
    for site in sites:
        site.stop()


@pytest.fixture(params=["embedded", "scale_out"])
def deployment(request):
    return request.getfixturevalue(request.param)


class Agent:
    """One agent behind its own address; each call goes to the deployment's next instance."""

    def __init__(self, deployment):
        self.deployment = deployment
        self.address = next(_addresses)
        self.token = None

    def call(self, method, path, body=None, headers=None):
        headers = {"X-Forwarded-For": self.address, **(headers or {})}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return requests.request(method, self.deployment.next_url() + path, json=body, headers=headers, timeout=TIMEOUT)

    def start_session(self):
        response = self.call("POST", SESSION_PATH)
        assert response.status_code == 201, response.text
        self.token = response.json()["data"]["session_token"]
        return response.json()["data"]["session_id"]

    def together(self, calls):
        """Send every (method, path, body[, headers]) at once, a thread each; responses in order."""
        with ThreadPoolExecutor(max_workers=len(calls)) as pool:
            return list(pool.map(lambda call: self.call(*call), calls))

    def cart_lines(self):
        response = self.call("GET", f"{API}/cart/view")
        assert response.status_code == 200, response.text
        return [(line["item_id"], line["quantity"]) for line in response.json()["data"]["items"]]


def codes(responses):
    """(status, code) of every response, after checking none is a 5xx and each is an envelope."""
    found = []
    for response in responses:
        assert response.status_code < 500, response.text
        body = response.json()
        found.append((response.status_code, body.get("code")))
    return found


def stored_lines(deployment, session_id):
    return deployment.query(
        "SELECT p.public_id, l.quantity FROM cart_cartline l JOIN cart_cart c ON l.cart_id = c.id "
        "JOIN catalog_product p ON l.product_id = p.id JOIN agents_protocol_agentsession s ON c.agent_session_id = s.id "
        "WHERE s.public_id = ? AND c.status = 'open' ORDER BY p.public_id", (session_id,))


def test_fifty_parallel_adds_of_one_unit_make_exactly_fifty(deployment):
    agent = Agent(deployment)
    session_id = agent.start_session()

    responses = agent.together([("POST", f"{API}/cart/add", {"item_id": "plate-a", "quantity": 1})] * 50)

    assert codes(responses) == [(200, None)] * 50
    assert sorted(r.json()["data"]["quantity"] for r in responses) == list(range(1, 51))
    assert agent.cart_lines() == [("plate-a", 50)]
    assert stored_lines(deployment, session_id) == [("plate-a", 50)]
    # Every call of the burst appended to one chain: no gap, no fork, and it verifies.
    assert agent.call("DELETE", SESSION_PATH).status_code == 200
    artifact = agent.call("GET", f"{API}/audit/{session_id}").json()["data"]
    events = artifact["events"]
    assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
    assert [event["capability"] for event in events].count("cart.add") == 50
    assert verify(artifact).ok


def test_parallel_removes_of_one_line_succeed_exactly_once(deployment):
    agent = Agent(deployment)
    agent.start_session()
    agent.call("POST", f"{API}/cart/add", {"item_id": "plate-a", "quantity": 3})

    responses = agent.together([("DELETE", f"{API}/cart/remove", {"item_id": "plate-a"})] * 10)

    assert sorted(codes(responses)) == [(200, None)] + [(404, "item_not_in_cart")] * 9
    assert agent.cart_lines() == []


def test_parallel_updates_leave_one_line_holding_one_of_the_quantities_sent(deployment):
    agent = Agent(deployment)
    session_id = agent.start_session()
    agent.call("POST", f"{API}/cart/add", {"item_id": "plate-a", "quantity": 1})

    responses = agent.together([("PUT", f"{API}/cart/update", {"item_id": "plate-a", "quantity": q})
                                for q in range(1, 21)])

    assert codes(responses) == [(200, None)] * 20
    ((item, quantity),) = agent.cart_lines()
    assert item == "plate-a" and 1 <= quantity <= 20
    assert stored_lines(deployment, session_id) == [("plate-a", quantity)]


def test_parallel_adds_updates_and_removes_end_in_a_state_some_order_of_them_explains(deployment):
    agent = Agent(deployment)
    session_id = agent.start_session()
    calls = []
    for item in ("plate-a", "plate-b"):
        calls += [("POST", f"{API}/cart/add", {"item_id": item, "quantity": 1})] * 8
        calls += [("PUT", f"{API}/cart/update", {"item_id": item, "quantity": 5})] * 4
        calls += [("DELETE", f"{API}/cart/remove", {"item_id": item})] * 3

    responses = agent.together(calls)

    assert set(codes(responses)) <= {(200, None), (404, "item_not_in_cart")}
    lines = agent.cart_lines()
    assert lines == stored_lines(deployment, session_id)
    assert len({item for item, _ in lines}) == len(lines)  # no item twice
    for item, quantity in lines:
        # Whatever came last before the end: adds after a remove (≤ 8), or adds after an update to 5.
        adds_seen = sorted(r.json()["data"]["quantity"] for (m, _p, b), r in zip(calls, responses)
                           if m == "POST" and b["item_id"] == item and r.status_code == 200)
        assert 1 <= quantity <= 5 + 8 and quantity in adds_seen + [5]


def test_parallel_checkouts_of_one_cart_make_exactly_one_order(deployment):
    agent = Agent(deployment)
    session_id = agent.start_session()
    agent.call("POST", f"{API}/cart/add", {"item_id": "plate-b", "quantity": 2})

    responses = agent.together([("POST", f"{API}/checkout")] * 10)

    found = codes(responses)
    assert found.count((200, None)) == 1
    assert set(found) - {(200, None)} <= {(409, "cart_not_open"), (409, "cart_empty")}
    assert deployment.query(
        "SELECT count(*) FROM cart_order o JOIN agents_protocol_agentsession s ON o.agent_session_id = s.id "
        "WHERE s.public_id = ?", (session_id,)) == [(1,)]


def test_parallel_adds_with_one_idempotency_key_add_once(deployment):
    agent = Agent(deployment)
    session_id = agent.start_session()
    add = ("POST", f"{API}/cart/add", {"item_id": "plate-a", "quantity": 3}, {"Idempotency-Key": "burst-1"})

    responses = agent.together([add] * 12)

    assert set(codes(responses)) <= {(200, None), (409, "idempotency_in_flight")}
    ran = [r for r in responses if r.status_code == 200 and "Idempotent-Replayed" not in r.headers]
    assert len(ran) == 1
    assert all(r.headers["Retry-After"] == "1" for r in responses if r.status_code == 409)
    assert stored_lines(deployment, session_id) == [("plate-a", 3)]


def test_parallel_session_creates_from_one_address_stop_exactly_at_max_sessions(deployment):
    agent = Agent(deployment)

    responses = agent.together([("POST", SESSION_PATH)] * (MAX_SESSIONS + 10))

    assert sorted(codes(responses)) == [(201, None)] * MAX_SESSIONS + [(429, "too_many_sessions")] * 10
    assert deployment.query(
        "SELECT count(*) FROM agents_protocol_agentsession WHERE client_address = ? AND ended_at IS NULL",
        (agent.address,)) == [(MAX_SESSIONS,)]
