"""A capability's own limit, calls per hour, on top of the site's rate limit (Capability.calls_per_hour).

contact sends the shop an email on every call: by default it takes 10 an hour from one client
address, whatever sessions the calls come in (sessions are free to make). Staff set a limit on
any capability in admin; it applies from the next call on every transport, and the published
documents say it. django-ratelimit's clock is frozen: an hourly window must not end mid-test.
"""
from types import SimpleNamespace

import pytest
from django.core import mail
from django_ratelimit import core as ratelimit_core

from agents_protocol.config_io import export_config
from agents_protocol.models import AuditEvent, Capability
from tests.api_client import API, IN_PROCESS_URL, AgentClient, assert_error, ok_data
from tests.test_interop_mcp import open_session, post, rpc

MESSAGE = {"name": "Ann", "email": "ann@example.com", "message": "Do you ship to Norway?"}


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    clock = SimpleNamespace(now=1_800_000_000.0)
    monkeypatch.setattr(ratelimit_core, "time", SimpleNamespace(time=lambda: clock.now))
    return clock


def test_contact_takes_ten_messages_an_hour_from_one_address_then_429(site_client):
    agent = AgentClient(django_client=site_client)
    for _ in range(10):
        assert ok_data(agent.post(f"{API}/contact", MESSAGE))["sent"] is True

    refused = agent.post(f"{API}/contact", MESSAGE)

    body = assert_error(refused, 429, "rate_limited")
    assert "at most 10 an hour" in body["error"]
    assert 1 <= int(refused.headers["Retry-After"]) <= 3600
    assert refused.headers["X-RateLimit-Limit"] == "60"  # the headers keep saying the site's limit
    assert len(mail.outbox) == 10
    assert ok_data(agent.get(f"{API}/search", {"q": "mug"}))["total"] == 0  # other capabilities go on


def test_sessions_share_their_address_budget_so_new_ones_buy_no_more(site_client, clock):
    anonymous = AgentClient(django_client=site_client)
    for _ in range(4):
        ok_data(anonymous.post(f"{API}/contact", MESSAGE))
    for _ in range(3):  # a session is made, sends, and is ended, again and again
        agent = AgentClient(django_client=site_client)
        agent.start_session(agent_name="churning")
        for _ in range(2):
            ok_data(agent.post(f"{API}/contact", MESSAGE))
        ok_data(agent.delete(f"{API}/session"))

    agent = AgentClient(django_client=site_client)
    agent.start_session(agent_name="one-more")
    assert_error(agent.post(f"{API}/contact", MESSAGE), 429, "rate_limited")
    assert AuditEvent.objects.filter(capability="contact", policy_result="deny:rate_limited").count() == 1
    assert len(mail.outbox) == 10

    clock.now += 3600  # the next hour's window
    ok_data(agent.post(f"{API}/contact", MESSAGE))


def test_a_limit_set_in_admin_applies_from_the_next_call_on_every_transport(http, admin_client):
    agent = AgentClient(django_client=http.django_client)
    agent.start_session(agent_name="limited")
    search = Capability.objects.get(name="search")
    form = {field: getattr(search, field) for field in ("name", "description", "endpoint", "method", "position")}
    changed = admin_client.post(f"/admin/agents_protocol/capability/{search.pk}/change/", {
        **form, "enabled": "on", "calls_per_hour": "4", "params-TOTAL_FORMS": "0", "params-INITIAL_FORMS": "0",
        "params-MIN_NUM_FORMS": "0", "params-MAX_NUM_FORMS": "1000"})
    assert changed.status_code == 302, changed.content.decode()[:2000]

    mcp_session = open_session(f"{IN_PROCESS_URL}/mcp", http=http)
    for _ in range(2):
        ok_data(agent.get(f"{API}/search", {"q": "mug"}))
        assert post(f"{IN_PROCESS_URL}/mcp", rpc("tools/call", {"name": "search", "arguments": {"q": "mug"}}),
                    mcp_session, http=http).status_code == 200
    assert_error(agent.get(f"{API}/search", {"q": "mug"}), 429, "rate_limited")
    over = post(f"{IN_PROCESS_URL}/mcp", rpc("tools/call", {"name": "search", "arguments": {"q": "mug"}}),
                mcp_session, http=http)
    assert over.status_code == 429 and over.json()["error"]["data"]["code"] == "rate_limited"
    assert AuditEvent.objects.filter(capability="search", policy_result="deny:rate_limited").count() == 2  # both sessions

    Capability.objects.filter(pk=search.pk).update(calls_per_hour=None)
    search.save()  # a save moves the configuration's revision
    assert ok_data(agent.get(f"{API}/search", {"q": "mug"}))["total"] == 0


def test_the_documents_and_the_exported_configuration_carry_the_limit(http):
    llms = http.get(f"{IN_PROCESS_URL}/llms.txt", timeout=10).text
    contact_row = next(line for line in llms.splitlines() if line.startswith("| contact |"))
    assert "at most 10 calls an hour" in contact_row
    openapi = http.get(f"{IN_PROCESS_URL}/.well-known/agents/openapi.json", timeout=10).json()
    assert "At most 10 calls an hour" in openapi["paths"][f"{API}/contact"]["post"]["description"]
    exported = {c["name"]: c for c in export_config()["capabilities"]}
    assert exported["contact"]["calls_per_hour"] == 10 and "calls_per_hour" not in exported["search"]
