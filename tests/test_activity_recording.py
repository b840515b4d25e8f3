"""Every call of the agent pipeline is counted in an AgentCall row for the activity page (a row
of its own when written alone), in process: sessionless and refused calls too, nothing secret
stored, written in batches by size, by age and (over real HTTP) when a gunicorn worker exits, and
pruned after ACTIVITY_RETENTION_DAYS."""
import sqlite3
import time
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import Sum
from django.utils import timezone

from agents_protocol.activity import recorder
from agents_protocol.models import AgentCall, AgentSession
from tests.api_client import API, IN_PROCESS_URL, AgentClient, assert_error, ok_data
from tests.factories import make_agent_session, make_product
from tests.servers import start_site

pytestmark = pytest.mark.django_db


def activity_settings(settings, **values):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, **values}


@pytest.fixture
def every_call_written(settings):
    activity_settings(settings, ACTIVITY_BUFFER_SIZE=1)


def stored_calls():
    """The calls written, whether a row counts one or several."""
    return AgentCall.objects.aggregate(calls=Sum("calls"))["calls"] or 0


def rows():
    return list(AgentCall.objects.order_by("id").values(
        "capability", "session_pk", "agent_name", "agent_version", "status", "code"))


def test_each_call_is_a_row_with_its_capability_session_agent_and_outcome(site_client, every_call_written):
    make_product(public_id="speckled-mug", name="Speckled Mug", stock=3)
    agent = AgentClient(django_client=site_client)
    ok_data(agent.get(f"{API}/search", {"q": "mug"}))
    session = agent.start_session(agent_name="shopper", agent_version="1.2")
    agent.add_to_cart("speckled-mug", 1)
    assert_error(agent.post(f"{API}/cart/add", {"item_id": "speckled-mug", "quantity": "many"}), 400, "invalid_params")
    assert_error(AgentClient(django_client=site_client).get(f"{API}/cart/view"), 401, "session_required")
    assert_error(agent.get(f"{API}/teleport"), 404, "not_found")

    pk = AgentSession.objects.get(public_id=session["session_id"]).pk
    assert rows() == [
        {"capability": "search", "session_pk": None, "agent_name": "", "agent_version": "", "status": 200, "code": ""},
        {"capability": "session.create", "session_pk": pk, "agent_name": "shopper", "agent_version": "1.2",
         "status": 201, "code": ""},
        {"capability": "cart.add", "session_pk": pk, "agent_name": "shopper", "agent_version": "1.2", "status": 200,
         "code": ""},
        {"capability": "cart.add", "session_pk": pk, "agent_name": "shopper", "agent_version": "1.2", "status": 400,
         "code": "invalid_params"},
        {"capability": "cart.view", "session_pk": None, "agent_name": "", "agent_version": "", "status": 401,
         "code": "session_required"},
        # A path no route matches is refused before the token is read: no session, like the 401 above.
        {"capability": "", "session_pk": None, "agent_name": "", "agent_version": "", "status": 404,
         "code": "not_found"},
    ]
    today = timezone.localdate()
    for call in AgentCall.objects.all():
        assert call.day == today and call.duration_us > 0
        assert abs((timezone.now() - call.at).total_seconds()) < 60


def test_refusals_of_the_json_rpc_layers_are_counted_with_their_code(http, every_call_written):
    """A2A and MCP refuse some messages before a capability is found: those are counted as refusals
    with the protocol's code, not as answered calls (both answer them with HTTP 200 or 400)."""
    token = make_agent_session().raw_token
    a2a = http.post(f"{IN_PROCESS_URL}/.well-known/agents/a2a", timeout=10, headers={"A2A-Version": "1.0"},
                    json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {}})
    mcp = http.post(f"{IN_PROCESS_URL}/mcp", timeout=10, json={"jsonrpc": "2.0", "id": 1, "method": "resources/list"},
                    headers={"Accept": "application/json, text/event-stream", "Mcp-Session-Id": token,
                             "MCP-Protocol-Version": "2025-11-25"})
    assert a2a.json()["error"]["code"] == -32001 and mcp.json()["error"]["code"] == -32601

    pk = AgentSession.objects.get().pk
    assert [(row["capability"], row["session_pk"], row["status"], row["code"]) for row in rows()] == [
        ("", None, 400, "invalid_request"),
        ("", pk, 404, "method_not_found"),
    ]


def test_nothing_secret_is_kept(site_client, every_call_written):
    agent = AgentClient(django_client=site_client)
    session = agent.start_session(agent_name="writer")
    ok_data(agent.post(f"{API}/contact", {"name": "Ada Lovelace", "email": "ada@example.com",
                                          "message": "Do you ship teapots to Lisbon?"}))
    stored = " ".join(str(value) for row in AgentCall.objects.values_list() for value in row)
    for secret in (session["session_token"], "ada@example.com", "Ada Lovelace", "teapots", "127.0.0.1"):
        assert secret not in stored
    assert AgentCall.objects.filter(capability="contact", code="").count() == 1


def test_calls_wait_until_the_buffer_is_full(site_client, settings):
    activity_settings(settings, ACTIVITY_BUFFER_SIZE=3, ACTIVITY_FLUSH_SECONDS=3600)
    agent = AgentClient(django_client=site_client)
    for expected in (0, 0, 3, 3, 3, 6):
        ok_data(agent.get(f"{API}/search", {"q": "mug"}))
        assert stored_calls() == expected


def test_calls_older_than_the_flush_interval_are_written_at_the_next_call(site_client, settings):
    activity_settings(settings, ACTIVITY_BUFFER_SIZE=1000, ACTIVITY_FLUSH_SECONDS=0.5)
    agent = AgentClient(django_client=site_client)
    ok_data(agent.get(f"{API}/search", {"q": "mug"}))
    assert stored_calls() == 0
    time.sleep(0.6)
    ok_data(agent.get(f"{API}/search", {"q": "vase"}))
    assert stored_calls() == 2


def test_no_call_is_recorded_with_a_buffer_of_zero(site_client, settings):
    activity_settings(settings, ACTIVITY_BUFFER_SIZE=0)
    ok_data(AgentClient(django_client=site_client).get(f"{API}/search", {"q": "mug"}))
    recorder.calls.flush()
    assert stored_calls() == 0


def test_calls_made_against_a_database_no_longer_in_use_are_dropped_not_written(site_client, settings):
    """At exit after a test run Django is back on the real database: a test's calls must not land there."""
    activity_settings(settings, ACTIVITY_BUFFER_SIZE=1000, ACTIVITY_FLUSH_SECONDS=3600)
    ok_data(AgentClient(django_client=site_client).get(f"{API}/search", {"q": "mug"}))
    database = connection.settings_dict["NAME"]
    connection.settings_dict["NAME"] = "the-real-database.sqlite3"
    try:
        recorder.calls.flush()
    finally:
        connection.settings_dict["NAME"] = database
    assert stored_calls() == 0
    ok_data(AgentClient(django_client=site_client).get(f"{API}/search", {"q": "mug"}))
    recorder.calls.flush()
    assert stored_calls() == 1


def test_calls_older_than_the_retention_are_deleted_when_a_worker_writes(site_client, settings):
    activity_settings(settings, ACTIVITY_BUFFER_SIZE=1, ACTIVITY_RETENTION_DAYS=30)
    today = timezone.localdate()
    for age in (31, 30):
        AgentCall.objects.create(at=timezone.now() - timedelta(days=age), day=today - timedelta(days=age),
                                 capability="search", agent_name="", agent_version="", status=200, code="",
                                 duration_us=900, latency_bucket=78)
    recorder.calls.last_prune = None  # this process has not pruned yet
    ok_data(AgentClient(django_client=site_client).get(f"{API}/search", {"q": "mug"}))
    assert sorted((today - day).days for day in AgentCall.objects.values_list("day", flat=True)) == [0, 30]


def test_a_shop_without_time_zones_records_calls_shows_the_page_and_prunes(site_client, settings, admin_client):
    """USE_TZ = False (older shops): times are naive local times; nothing raises."""
    settings.USE_TZ = False
    activity_settings(settings, ACTIVITY_BUFFER_SIZE=1, ACTIVITY_RETENTION_DAYS=30)
    recorder.calls.last_prune = None
    ok_data(AgentClient(django_client=site_client).get(f"{API}/search", {"q": "mug"}))
    call = AgentCall.objects.get()
    assert call.at.tzinfo is None and call.day == timezone.now().date()
    assert abs((timezone.now() - call.at).total_seconds()) < 60

    page = admin_client.get("/admin/agents_protocol/agentcall/")
    assert page.status_code == 200 and "search" in page.content.decode()
    call_command("agents_prune")
    assert AgentCall.objects.count() == 1


def test_a_gunicorn_worker_writes_its_calls_when_it_exits(tmp_path):
    # The shipped buffer (500 calls) and an hour instead of 10 seconds between writes by age: a
    # stalled machine's calls 10 seconds apart would be written before the worker exits.
    site = start_site(tmp_path, workers=1, DJANGO_SETTINGS_MODULE="tests.site_settings_hourly_activity_flush")
    try:
        agent = AgentClient(site.url)
        for query in ("mug", "vase"):
            ok_data(agent.get(f"{API}/search", {"q": query}))
        assert count_calls(tmp_path) == 0
    finally:
        site.stop()
    assert count_calls(tmp_path) == 2


def count_calls(data_dir):
    with sqlite3.connect(data_dir / "db.sqlite3") as connection:
        return connection.execute("SELECT COALESCE(SUM(calls), 0) FROM agents_protocol_agentcall").fetchone()[0]
