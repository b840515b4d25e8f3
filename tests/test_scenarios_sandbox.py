"""The sandbox, in process (agents_protocol/core/sandbox.py, docs/agent-testing.md): a session
whose agent name asks for it hits a rate limit of 3 calls or expires after a few seconds, while
every other session keeps the configured limits.

django-ratelimit's clock is frozen (the site answers in this process), so no window ends in
the middle of a test; the counters are the site's real cache.
"""
import time
from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest
from django_ratelimit import core

from agents_protocol.models import AgentSession, RateLimitConfig
from tests.api_client import API, IN_PROCESS_URL, AgentClient, assert_error, ok_data
from tests.test_inspector_api import state_data
from tests.test_interop_mcp import initialize_message, post

CART_VIEW = f"{API}/cart/view"
SANDBOX_ON = {"REQUESTS_PER_MINUTE": 3, "SESSION_TTL_SECONDS": 10}


@pytest.fixture
def clock(monkeypatch):
    clock = SimpleNamespace(now=1_800_000_000.0)
    monkeypatch.setattr(core, "time", SimpleNamespace(time=lambda: clock.now))
    return clock


@pytest.fixture
def sandbox(settings):
    """Sets the sandbox's settings for the site (the demo's own, unless a test changes them)."""
    def configure(value):
        settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "SANDBOX": value}
        config = RateLimitConfig.load()
        config.save()  # a new configuration revision: the documents are rendered again
    configure(SANDBOX_ON)
    return configure


def agent(http, name):
    client = AgentClient(django_client=http.django_client)
    client.session = client.start_session(agent_name=name)
    return client


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_a_session_named_for_the_rate_limit_is_refused_at_its_fourth_call(http, sandbox, clock):
    tester = agent(http, "acme-test-bot sandbox:rate-limit")
    bystander = agent(http, "acme-test-bot")

    answers = [tester.get(CART_VIEW) for _ in range(4)]

    assert [a.status_code for a in answers[:3]] == [200, 200, 200]
    assert [a.headers["X-RateLimit-Limit"] for a in answers[:3]] == ["3", "3", "3"]
    assert [a.headers["X-RateLimit-Remaining"] for a in answers[:3]] == ["2", "1", "0"]
    body = assert_error(answers[3], 429, "rate_limited")
    assert "the limit is 3 per minute" in body["error"]
    assert 1 <= int(answers[3].headers["Retry-After"]) <= 60
    headroom = state_data(http, tester.session["inspect_url"])["rate_limit"]  # what the developer watches
    assert (headroom["limit"], headroom["remaining"]) == (3, 0)
    calm = bystander.get(CART_VIEW)
    assert calm.status_code == 200
    assert calm.headers["X-RateLimit-Limit"] == "60"
    clock.now += 61
    assert tester.get(CART_VIEW).status_code == 200  # the next window


def test_the_sandbox_never_raises_a_lower_configured_limit(http, sandbox, clock):
    config = RateLimitConfig.load()
    config.requests_per_minute = 2
    config.save()
    tester = agent(http, "SANDBOX:RATE-LIMIT")

    answers = [tester.get(CART_VIEW) for _ in range(3)]

    assert answers[0].headers["X-RateLimit-Limit"] == "2"
    assert_error(answers[2], 429, "rate_limited")


def test_a_session_named_for_a_short_life_expires_and_says_so(http, sandbox):
    tester = agent(http, "acme-test-bot sandbox:short-session")
    assert tester.session["ttl_seconds"] == 10
    stored = AgentSession.objects.get(public_id=tester.session["session_id"])
    assert stored.expires_at - stored.created_at == timedelta(seconds=10)
    assert parse_time(tester.session["expires_at"]) == stored.expires_at.replace(microsecond=0)
    assert tester.get(CART_VIEW).status_code == 200

    sandbox({"SESSION_TTL_SECONDS": 1})
    quick = agent(http, "acme-test-bot sandbox:short-session")
    assert quick.session["ttl_seconds"] == 1
    time.sleep(1.2)
    assert_error(quick.get(CART_VIEW), 401, "session_expired")
    assert tester.get(CART_VIEW).status_code == 200  # its own 10 seconds are not over


def test_an_mcp_client_named_for_a_short_life_gets_one(http, sandbox):
    sandbox({"SESSION_TTL_SECONDS": 1})
    answer = post(f"{IN_PROCESS_URL}/mcp", initialize_message("inspector sandbox:short-session"), http=http)
    assert answer.status_code == 200, answer.text
    session = answer.json()["result"]["_meta"]["agents-protocol/session"]
    stored = AgentSession.objects.get(public_id=session["session_id"])
    assert stored.expires_at - stored.created_at == timedelta(seconds=1)
    assert parse_time(session["expires_at"]) == stored.expires_at.replace(microsecond=0)
    time.sleep(1.2)
    expired = post(f"{IN_PROCESS_URL}/mcp", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                   session_id=answer.headers["Mcp-Session-Id"], http=http)
    assert expired.status_code == 404  # MCP's answer to an expired session: initialize again
    assert "expired" in expired.json()["error"]["message"]


def test_other_sessions_keep_the_configured_lifetime(http, sandbox):
    session = agent(http, "acme-test-bot").session
    assert session["ttl_seconds"] == 1800


def test_off_the_markers_change_nothing(http, sandbox, clock):
    sandbox(None)
    tester = agent(http, "acme-test-bot sandbox:rate-limit sandbox:short-session")

    answers = [tester.get(CART_VIEW) for _ in range(4)]

    assert tester.session["ttl_seconds"] == 1800
    assert [a.status_code for a in answers] == [200] * 4
    assert answers[0].headers["X-RateLimit-Limit"] == "60"
    assert "**Sandbox**" not in http.get(f"{IN_PROCESS_URL}/llms.txt", timeout=10).text


def test_llms_txt_tells_agents_how_to_ask_for_them(http, sandbox):
    llms = http.get(f"{IN_PROCESS_URL}/llms.txt", timeout=10).text
    assert "`sandbox:rate-limit` is allowed 3 requests per minute" in llms
    assert "`sandbox:short-session` expires 10 seconds after creation (then 401 `session_expired`)" in llms
