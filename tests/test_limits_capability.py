"""A capability's own limit, calls per hour, on top of the site's rate limit (Capability.calls_per_hour).

contact sends the shop an email on every call: by default it takes 10 an hour from one session,
else from one client address. Staff set a limit on any capability in admin; it applies from the
next call on every transport, and the published documents say it.
"""
import requests
from django.core import mail

from agents_protocol.config_io import export_config
from agents_protocol.models import AuditEvent, Capability
from tests.api_client import API, AgentClient, assert_error, ok_data
from tests.test_interop_mcp import open_session, post, rpc

MESSAGE = {"name": "Ann", "email": "ann@example.com", "message": "Do you ship to Norway?"}


def test_contact_takes_ten_messages_an_hour_from_one_address_then_429(live_server):
    agent = AgentClient(live_server.url)
    for _ in range(10):
        assert ok_data(agent.post(f"{API}/contact", MESSAGE))["sent"] is True

    refused = agent.post(f"{API}/contact", MESSAGE)

    body = assert_error(refused, 429, "rate_limited")
    assert "at most 10 an hour" in body["error"]
    assert 1 <= int(refused.headers["Retry-After"]) <= 3600
    assert refused.headers["X-RateLimit-Limit"] == "60"  # the headers keep saying the site's limit
    assert len(mail.outbox) == 10
    assert ok_data(agent.get(f"{API}/search", {"q": "mug"}))["total"] == 0  # other capabilities go on


def test_a_session_has_a_budget_of_its_own(live_server):
    anonymous = AgentClient(live_server.url)
    for _ in range(10):
        ok_data(anonymous.post(f"{API}/contact", MESSAGE))
    assert_error(anonymous.post(f"{API}/contact", MESSAGE), 429, "rate_limited")

    agent = AgentClient(live_server.url)
    agent.start_session(agent_name="polite")
    ok_data(agent.post(f"{API}/contact", MESSAGE))
    refused = AuditEvent.objects.filter(capability="contact", policy_result="deny:rate_limited")
    assert not refused.exists()  # the address's refusals had no session to record them in


def test_a_limit_set_in_admin_applies_from_the_next_call_on_every_transport(live_server, admin_client):
    agent = AgentClient(live_server.url)
    agent.start_session(agent_name="limited")
    search = Capability.objects.get(name="search")
    form = {field: getattr(search, field) for field in ("name", "description", "endpoint", "method", "position")}
    changed = admin_client.post(f"/admin/agents_protocol/capability/{search.pk}/change/", {
        **form, "enabled": "on", "calls_per_hour": "2", "params-TOTAL_FORMS": "0", "params-INITIAL_FORMS": "0",
        "params-MIN_NUM_FORMS": "0", "params-MAX_NUM_FORMS": "1000"})
    assert changed.status_code == 302, changed.content.decode()[:2000]

    mcp_session = open_session(f"{live_server.url}/mcp")
    for _ in range(2):
        ok_data(agent.get(f"{API}/search", {"q": "mug"}))
        assert post(f"{live_server.url}/mcp", rpc("tools/call", {"name": "search", "arguments": {"q": "mug"}}),
                    mcp_session).status_code == 200
    assert_error(agent.get(f"{API}/search", {"q": "mug"}), 429, "rate_limited")
    over = post(f"{live_server.url}/mcp", rpc("tools/call", {"name": "search", "arguments": {"q": "mug"}}),
                mcp_session)
    assert over.status_code == 429 and over.json()["error"]["data"]["code"] == "rate_limited"
    assert AuditEvent.objects.filter(capability="search", policy_result="deny:rate_limited").count() == 2

    Capability.objects.filter(pk=search.pk).update(calls_per_hour=None)
    search.save()  # a save moves the configuration's revision
    assert ok_data(agent.get(f"{API}/search", {"q": "mug"}))["total"] == 0


def test_the_documents_and_the_exported_configuration_carry_the_limit(live_server):
    llms = requests.get(f"{live_server.url}/llms.txt", timeout=10).text
    contact_row = next(line for line in llms.splitlines() if line.startswith("| contact |"))
    assert "at most 10 calls an hour" in contact_row
    openapi = requests.get(f"{live_server.url}/.well-known/agents/openapi.json", timeout=10).json()
    assert "At most 10 calls an hour" in openapi["paths"][f"{API}/contact"]["post"]["description"]
    exported = {c["name"]: c for c in export_config()["capabilities"]}
    assert exported["contact"]["calls_per_hour"] == 10 and "calls_per_hour" not in exported["search"]
