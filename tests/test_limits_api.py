"""The API's rate limit in one process: headers, 429, keys, admin changes, trusted proxies.

django-ratelimit's clock is frozen (and moved by hand where a test needs the next window),
so no window can end in the middle of a test. The counters are real: the site's cache.
"""
import hashlib
from importlib import import_module
from types import SimpleNamespace

import pytest
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.test import RequestFactory
from django_ratelimit import core

from agents_protocol.http.client import client_address
from agents_protocol.http.limits import rate_key
from agents_protocol.models import AgentSession, AuditEvent, RateLimitConfig
from tests.api_client import API, SESSION_PATH
from tests.factories import make_agent_session
from tests.servers import port_nothing_listens_on

pytestmark = pytest.mark.django_db

SEARCH = f"{API}/search?q=mug"
CART_VIEW = f"{API}/cart/view"


@pytest.fixture
def clock(monkeypatch):
    """django-ratelimit's time, frozen; tests move `clock.now` forward."""
    clock = SimpleNamespace(now=1_800_000_000.0)
    monkeypatch.setattr(core, "time", SimpleNamespace(time=lambda: clock.now))
    return clock


def set_limit(requests_per_minute):
    config = RateLimitConfig.load()
    config.requests_per_minute = requests_per_minute
    config.save()


def create_session(client, **headers):
    return client.post(SESSION_PATH, content_type="application/json", **headers)


def limit_headers(response):
    return {name: response.headers.get(name) for name in ("X-RateLimit-Limit", "X-RateLimit-Remaining")}


def test_every_answer_carries_the_limit_and_the_remaining_calls(client, clock):
    first, second = client.get(SEARCH), client.get(SEARCH)
    assert first.status_code == second.status_code == 200
    assert limit_headers(first) == {"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "59"}
    assert limit_headers(second) == {"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "58"}
    # X-RateLimit-Reset: the Unix time the window resets, the same for every call of the window.
    reset = int(first.headers["X-RateLimit-Reset"])
    assert clock.now < reset <= clock.now + 60
    assert second.headers["X-RateLimit-Reset"] == str(reset)


def test_past_the_limit_the_answer_is_429_rate_limited_with_retry_after(client, clock):
    set_limit(3)
    answered = [client.get(SEARCH) for _ in range(3)]
    refused = client.get(SEARCH)

    assert [r.status_code for r in answered] == [200, 200, 200]
    assert refused.status_code == 429
    body = refused.json()
    assert body["ok"] is False and body["code"] == "rate_limited" and "3 per minute" in body["error"]
    retry_after = refused.headers["Retry-After"]
    assert retry_after.isdigit() and int(retry_after) >= 1
    # Retry-After is delta-seconds (HTTP), X-RateLimit-Reset the Unix time they lead to.
    assert int(refused.headers["X-RateLimit-Reset"]) == int(clock.now) + int(retry_after)
    assert refused.headers["X-RateLimit-Reset"] == answered[0].headers["X-RateLimit-Reset"]
    assert limit_headers(refused) == {"X-RateLimit-Limit": "3", "X-RateLimit-Remaining": "0"}


def test_the_next_window_admits_calls_again(client, clock):
    set_limit(1)
    assert client.get(SEARCH).status_code == 200
    refused = client.get(SEARCH)
    assert refused.status_code == 429

    clock.now += int(refused.headers["Retry-After"])
    assert clock.now == int(refused.headers["X-RateLimit-Reset"])
    admitted = client.get(SEARCH)
    assert admitted.status_code == 200
    # The next window is 60 seconds long and resets 60 seconds after the one before.
    assert int(admitted.headers["X-RateLimit-Reset"]) == int(refused.headers["X-RateLimit-Reset"]) + 60


def test_a_change_in_admin_applies_to_the_next_call(admin_client, client, clock):
    assert client.get(SEARCH).headers["X-RateLimit-Limit"] == "60"
    change = admin_client.post("/admin/agents_protocol/ratelimitconfig/1/change/",
                               {"requests_per_minute": 2, "max_sessions": 5})
    assert change.status_code == 302

    assert [client.get(SEARCH).status_code for _ in range(3)] == [200, 200, 429]


def test_a_session_and_its_address_have_separate_budgets(client, clock):
    set_limit(2)
    session = make_agent_session()
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {session.raw_token}"}

    assert [client.get(CART_VIEW, **bearer).status_code for _ in range(3)] == [200, 200, 429]
    assert client.get(SEARCH).status_code == 200  # the address has used nothing yet


def test_a_refused_call_is_recorded_in_the_session_audit_trail(client, clock):
    set_limit(1)
    session = create_session(client).json()["data"]
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {session['session_token']}"}
    assert [client.get(CART_VIEW, **bearer).status_code for _ in range(2)] == [200, 429]

    events = AuditEvent.objects.filter(session__public_id=session["session_id"]).order_by("seq")
    assert [(e.capability, e.response_status, e.policy_result) for e in events][-2:] == [
        ("cart.view", 200, "allow"), ("cart.view", 429, "deny:rate_limited")]


def test_a_session_past_its_limit_has_its_first_refusal_of_each_window_recorded(client, clock):
    """A client past its limit could otherwise write a row per call, as fast as it can send: of the
    calls a limit refuses, each window's first is recorded, the rest only counted."""
    set_limit(2)
    session = create_session(client).json()["data"]
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {session['session_token']}"}
    assert [client.get(CART_VIEW, **bearer).status_code for _ in range(7)] == [200, 200] + [429] * 5
    clock.now += 60  # the next window
    assert [client.get(CART_VIEW, **bearer).status_code for _ in range(4)] == [200, 200, 429, 429]

    events = AuditEvent.objects.filter(session__public_id=session["session_id"], capability="cart.view")
    assert [e.policy_result for e in events.order_by("seq")] == ["allow", "allow", "deny:rate_limited"] * 2


def test_invented_tokens_count_against_the_address(client, clock):
    set_limit(2)
    statuses = [client.get(SEARCH, HTTP_AUTHORIZATION=f"Bearer invented-{n}").status_code for n in range(3)]
    assert statuses == [200, 200, 429]


def test_refused_calls_count_and_carry_the_headers_too(client, clock):
    set_limit(3)
    unknown_path = client.get(f"{API}/nowhere")
    bad_token = client.get(CART_VIEW, HTTP_AUTHORIZATION="Bearer not-a-session")
    session_create = create_session(client)

    assert (unknown_path.status_code, bad_token.status_code, session_create.status_code) == (404, 401, 201)
    assert [r.headers["X-RateLimit-Remaining"] for r in (unknown_path, bad_token, session_create)] == ["2", "1", "0"]
    assert client.get(f"{API}/nowhere").json()["code"] == "rate_limited"


def test_the_rate_key_of_a_session_is_its_token_hash_never_the_token(rf):
    session = make_agent_session()
    key = rate_key(rf.get(SEARCH), session)
    assert key == f"session:{hashlib.sha256(session.raw_token.encode()).hexdigest()}"
    assert session.raw_token not in key


def test_ipv6_addresses_share_a_budget_per_64(rf):
    one = rf.get(SEARCH, REMOTE_ADDR="2001:db8:1:2::1")
    other = rf.get(SEARCH, REMOTE_ADDR="2001:db8:1:2:ffff::9")
    elsewhere = rf.get(SEARCH, REMOTE_ADDR="2001:db8:1:3::1")
    assert rate_key(one) == rate_key(other) == "address:2001:db8:1:2::/64"
    assert rate_key(elsewhere) != rate_key(one)


def test_ipv4_clients_seen_through_ipv6_count_as_their_ipv4_address(rf):
    """A dual-stack socket shows IPv4 clients as ::ffff:a.b.c.d, NAT64 as 64:ff9b::a.b.c.d: their
    /64 would be every IPv4 client at once, one budget and one max_sessions for all of them."""
    mapped = rf.get(SEARCH, REMOTE_ADDR="::ffff:192.0.2.1")
    translated = rf.get(SEARCH, REMOTE_ADDR="64:ff9b::c000:201")
    neighbour = rf.get(SEARCH, REMOTE_ADDR="::ffff:192.0.2.2")
    assert rate_key(mapped) == rate_key(translated) == "address:192.0.2.1"
    assert rate_key(neighbour) == "address:192.0.2.2"


def test_a_cache_that_cannot_count_is_503_backend_unavailable(client, settings):
    with port_nothing_listens_on() as port:
        settings.CACHES = {**settings.CACHES, settings.RATELIMIT_USE_CACHE: {
            "BACKEND": "django_redis.cache.RedisCache", "LOCATION": f"redis://127.0.0.1:{port}/0"}}
        response = client.get(SEARCH)
    assert response.status_code == 503
    assert response.json()["code"] == "backend_unavailable"
    assert response.headers["Retry-After"] == "5"
    assert "X-RateLimit-Limit" not in response.headers


def test_ratelimit_enable_false_turns_counting_off(client, clock, settings):
    settings.RATELIMIT_ENABLE = False
    set_limit(1)
    responses = [client.get(SEARCH) for _ in range(3)]
    assert [r.status_code for r in responses] == [200, 200, 200]
    assert "X-RateLimit-Limit" not in responses[0].headers


# Trusted proxies: X-Forwarded-For only counts when a setting says how many proxies append to it.

def forwarded(remote, header):
    return RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=header)


def trust_proxies(settings, count):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "TRUSTED_PROXY_COUNT": count}


def test_forwarded_for_is_ignored_by_default(settings):
    assert client_address(forwarded("198.51.100.7", "203.0.113.1")) == "198.51.100.7"


@pytest.mark.parametrize("count, header, expected", [
    (1, "203.0.113.1", "203.0.113.1"),
    (1, "6.6.6.6, 203.0.113.1", "203.0.113.1"),  # the client forged the left entry
    (2, "6.6.6.6, 203.0.113.1, 10.0.0.2", "203.0.113.1"),
    (2, "203.0.113.1", "198.51.100.7"),  # fewer hops than proxies: not trusted
    (1, "not-an-address", "198.51.100.7"),
    (1, "", "198.51.100.7"),
])
def test_trusted_proxies_take_the_entry_their_outermost_proxy_added(settings, count, header, expected):
    trust_proxies(settings, count)
    assert client_address(forwarded("198.51.100.7", header)) == expected


def test_a_forged_forwarded_for_does_not_buy_a_fresh_budget(client, clock):
    set_limit(2)
    statuses = [client.get(SEARCH, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code for n in range(3)]
    assert statuses == [200, 200, 429]


def test_behind_a_trusted_proxy_each_client_has_its_own_budget(client, clock, settings):
    trust_proxies(settings, 1)
    set_limit(1)
    assert client.get(SEARCH, HTTP_X_FORWARDED_FOR="203.0.113.1").status_code == 200
    assert client.get(SEARCH, HTTP_X_FORWARDED_FOR="203.0.113.1").status_code == 429
    assert client.get(SEARCH, HTTP_X_FORWARDED_FOR="203.0.113.2").status_code == 200


@pytest.mark.django_db
def test_the_migration_gives_the_sessions_of_an_existing_install_their_network():
    for address in ("2001:db8:1:2::1", "2001:db8:1:2:ffff::9", "203.0.113.7"):
        make_agent_session(client_address=address)
    AgentSession.objects.update(client_network="")
    apps = MigrationLoader(connection).project_state(("agents_protocol", "0021_session_client_network")).apps

    import_module("agents_protocol.migrations.0021_session_client_network").fill_networks(apps, None)

    assert sorted(AgentSession.objects.values_list("client_network", flat=True)) == [
        "2001:db8:1:2::/64", "2001:db8:1:2::/64", "203.0.113.7"]


@pytest.mark.parametrize("first, same_client, another", [
    ("203.0.113.1", "203.0.113.1", "203.0.113.2"),
    # One host holds a whole /64: a new address from it is no new allowance of sessions.
    ("2001:db8:1:2::1", "2001:db8:1:2:ffff::9", "2001:db8:1:3::1"),
], ids=["ipv4", "ipv6-by-its-64"])
def test_max_sessions_counts_the_address_behind_the_trusted_proxy_an_ipv6_one_by_its_64(
        client, clock, settings, first, same_client, another):
    trust_proxies(settings, 1)
    config = RateLimitConfig.load()
    config.max_sessions = 1
    config.save()
    responses = [create_session(client, HTTP_X_FORWARDED_FOR=address) for address in (first, same_client, another)]
    assert [r.status_code for r in responses] == [201, 429, 201]
    assert responses[1].json()["code"] == "too_many_sessions"
    assert sorted(AgentSession.objects.values_list("client_address", flat=True)) == sorted([first, another])
