"""The MCP server (agents_protocol/transports/mcp.py), driven by the official clients, live, and
by raw messages in process.

- The `mcp` Python SDK (Streamable HTTP client and ClientSession) against live_server: initialize,
  list the tools, call search, detail, cart.add, cart.view and checkout, end the session (DELETE);
  the sealed audit trail holds every call in order and verifies with the published key.
- The MCP Inspector's command-line mode (`@modelcontextprotocol/inspector --cli`, installed from
  tools/mcp-inspector's lockfile with npm ci) lists the tools and calls one against gunicorn.
- The transport's HTTP rules, as the specification's Streamable HTTP section words them, in
  process (a chunked body over real HTTP): 202 for notifications, 405 for GET, Mcp-Session-Id
  required (400) and known (404), Origin checked (403), MCP-Protocol-Version checked (400),
  DELETE ending the session.
- The tools come from the configuration: schemas from the one capability schema, annotations
  from each capability's method, a capability disabled in admin gone from the next tools/list,
  in every worker.
"""
import asyncio
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path

import httpx2
import mcp_types
import pytest
import requests
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation
from mcp_types.methods import serialize_server_result
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from agents_protocol.audit import verify
from agents_protocol.core import codec
from agents_protocol.core.defaults import MAX_SESSIONS
from agents_protocol.models import AgentSession, Capability, McpConfig
from agents_protocol.transports.mcp import tool_result
from cart.models import CartLine
from tests.api_client import IN_PROCESS_URL, Site
from tests.build_cache import npm_installed
from tests.factories import make_agent_session, make_product
from tests.servers import ROOT, on_every_worker, set_rate_limit, start_site
from tests.test_agents_admin import capability_form, inline_management

TIMEOUT = 10
ACCEPT = "application/json, text/event-stream"
VERSION = "2025-11-25"
INSPECTOR_PROJECT = ROOT / "tools" / "mcp-inspector"
CLIENT = {"name": "acme-mcp-test", "version": "1.2.3"}


def stock_the_shop():
    make_product(public_id="mug", slug="mug", name="Celadon mug", stock=10)
    make_product(public_id="vase", slug="vase", name="Tall vase", stock=3)


@pytest.fixture
def shop(http):
    """The site in process, with two products: its URL, and `shop.http` to reach it."""
    stock_the_shop()
    return Site(IN_PROCESS_URL, http)


@pytest.fixture
def live_shop(live_server):
    """The same over real HTTP, for the official client and the wire's own rules."""
    stock_the_shop()
    return Site(live_server.url, requests)


def rpc(method, params=None, rpc_id=1):
    message = {"jsonrpc": "2.0", "id": rpc_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def initialize_message(name="raw-http", version="0.1"):
    return rpc("initialize", {"protocolVersion": VERSION, "capabilities": {},
                              "clientInfo": {"name": name, "version": version}})


def post(url, message, session_id=None, *, http=requests, **headers):
    """POST one JSON-RPC message with requests, or with `http` (tests/api_client.py's InProcessRequests)."""
    sent = {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": VERSION, **headers}
    if session_id is not None:
        sent["Mcp-Session-Id"] = session_id
    return http.post(url, data=json.dumps(message), headers=sent, timeout=TIMEOUT)


def open_session(url, name="raw-http", *, http=requests):
    answer = post(url, initialize_message(name), http=http)
    assert answer.status_code == 200, answer.text
    return answer.headers["Mcp-Session-Id"]


# 1. The official Python SDK, live


async def shop_as_an_mcp_client(url):
    """What an MCP client does with the shop: the tools, a purchase up to the human handoff."""
    seen_session_ids = []

    async def remember_session_id(response):
        if "mcp-session-id" in response.headers:
            seen_session_ids.append(response.headers["mcp-session-id"])

    async with httpx2.AsyncClient(event_hooks={"response": [remember_session_id]}, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(**CLIENT)) as session:
                initialized = await session.initialize()
                listed = await session.list_tools()
                found = await session.call_tool("search", {"q": "celadon"})
                detail = await session.call_tool("detail", {"id": "mug"})
                added = await session.call_tool("cart.add", {"item_id": "mug", "quantity": 2})
                refused = await session.call_tool("cart.add", {"item_id": "nope"})
                cart = await session.call_tool("cart.view", {})
                checkout = await session.call_tool("checkout", {})
                orders = await session.call_tool("order.status", {})
                order = await session.call_tool("order.status", {"order_id": checkout.structured_content["order_id"]})
        # Leaving streamable_http_client sent DELETE with the Mcp-Session-Id.
    return {
        "initialized": initialized, "tools": listed.tools, "search": found, "detail": detail, "added": added,
        "refused": refused, "cart": cart, "checkout": checkout, "orders": orders, "order": order,
        "session_id": seen_session_ids[0],
    }


def run_in_a_loop_of_its_own(coroutine):
    """asyncio.run() in a thread of its own: after a browser test, Playwright's event loop is still
    running in this thread, where asyncio.run() refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@pytest.mark.usefixtures("key_file")
def test_the_python_sdk_shops_up_to_the_human_checkout_link_and_the_sealed_trail_verifies(live_shop):
    url = f"{live_shop}/mcp"
    run = run_in_a_loop_of_its_own(shop_as_an_mcp_client(url))

    initialized = run["initialized"]
    assert initialized.protocol_version == VERSION
    assert initialized.server_info.name == "Acme Ceramics"
    assert initialized.capabilities.tools is not None
    assert {tool.name for tool in run["tools"]} >= {"search", "detail", "cart.add", "cart.view", "checkout"}

    assert [item["id"] for item in run["search"].structured_content["results"]] == ["mug"]
    assert run["detail"].structured_content["id"] == "mug" and not run["detail"].is_error
    assert run["added"].structured_content["quantity"] == 2
    assert run["refused"].is_error and run["refused"].structured_content is None
    refusal = json.loads(run["refused"].content[0].text)
    assert (refusal["code"], refusal["status"]) == ("unknown_item", 404)
    assert run["cart"].structured_content["cart_size"] == 1
    assert json.loads(run["cart"].content[0].text) == json.loads(json.dumps(run["cart"].structured_content))
    handoff = run["checkout"].structured_content
    assert handoff["human_handoff"] is True and handoff["checkout_url"].startswith(f"{live_shop}/checkout/")
    assert requests.get(handoff["checkout_url"], timeout=TIMEOUT).status_code == 200  # the human's page
    # order.status has an outputSchema too, which the SDK checked both answers against
    assert [o["order_id"] for o in run["orders"].structured_content["orders"]] == [handoff["order_id"]]
    assert run["order"].structured_content["status"] == "pending"

    session = AgentSession.objects.get()
    assert (session.agent_name, session.agent_version) == (CLIENT["name"], CLIENT["version"])
    assert session.end_reason == "deleted"  # the client's DELETE ended it
    audit_url = initialized.meta["agents-protocol/session"]["audit_url"]
    artifact = requests.get(audit_url, headers={"Authorization": f"Bearer {run['session_id']}"}, timeout=TIMEOUT)
    assert artifact.status_code == 200, artifact.text
    trail = artifact.json()["data"]
    assert [(e["capability"], e["policy_result"]) for e in trail["events"]] == [
        ("session.create", "allow"), ("search", "allow"), ("detail", "allow"), ("cart.add", "allow"),
        ("cart.add", "deny:unknown_item"), ("cart.view", "allow"), ("checkout", "allow"),
        ("order.status", "allow"), ("order.status", "allow"), ("session.end", "allow:ended:deleted"),
    ]
    assert trail["events"][0]["params"]["agent_name"] == CLIENT["name"]
    assert {e["path"] for e in trail["events"][:-1]} == {"/mcp"}
    assert (trail["events"][-1]["method"], trail["events"][-1]["response_status"]) == ("DELETE", 204)  # as answered
    public_key = requests.get(f"{live_shop}/.well-known/agents.json", timeout=TIMEOUT).json()["audit"]["public_key"]
    assert verify(trail, public_key).ok


# 2. The tools come from the configuration


def tools_of(url, session_id, http=requests):
    answer = post(url, rpc("tools/list"), session_id, http=http)
    assert answer.status_code == 200, answer.text
    return {tool["name"]: tool for tool in answer.json()["result"]["tools"]}


def annotations_for(method, title):
    """docs/interop.md's promise: read-only for GET; else destructive for DELETE, idempotent for
    PUT and DELETE; never an open world."""
    if method == "GET":
        return {"title": title, "readOnlyHint": True, "openWorldHint": False}
    return {"title": title, "readOnlyHint": False, "destructiveHint": method == "DELETE",
            "idempotentHint": method in ("PUT", "DELETE"), "openWorldHint": False}


def test_one_tool_per_enabled_capability_with_the_published_schemas_and_annotations(shop):
    url = f"{shop}/mcp"
    tools = tools_of(url, open_session(url, http=shop.http), shop.http)
    agents = shop.http.get(f"{shop}/.well-known/agents.json", timeout=TIMEOUT).json()
    pactspec = shop.http.get(f"{shop}/.well-known/pactspec.json", timeout=TIMEOUT).json()

    assert list(tools) == [c["name"] for c in agents["capabilities"]]
    for capability, skill in zip(agents["capabilities"], pactspec["skills"]):
        tool = tools[capability["name"]]
        assert tool["description"] == capability["description"]
        assert tool["inputSchema"] == skill["inputSchema"]  # the one capability schema, compiled once
        assert tool["annotations"] == annotations_for(capability["method"], skill["name"]), capability["name"]
        if "outputSchema" in tool:
            assert tool["outputSchema"] == skill["outputSchema"] and tool["outputSchema"]["type"] == "object"
    assert {name for name, tool in tools.items() if "outputSchema" in tool} >= {
        "search", "browse", "detail", "cart.add", "cart.view", "checkout", "order.status"}
    assert {c["method"] for c in agents["capabilities"]} == {"GET", "POST", "PUT", "DELETE"}


def test_a_capability_disabled_in_admin_is_gone_from_the_next_tools_list(shop, admin_client):
    url = f"{shop}/mcp"
    session_id = open_session(url, http=shop.http)
    assert "contact" in tools_of(url, session_id, shop.http)
    contact = Capability.objects.get(name="contact")
    form = capability_form(name="contact", endpoint=contact.endpoint, method="POST", requires_session="",
                           enabled="", position=str(contact.position))
    form.update(inline_management("params", 0, 0))
    saved = admin_client.post(f"/admin/agents_protocol/capability/{contact.pk}/change/", form)
    assert saved.status_code == 302

    assert "contact" not in tools_of(url, session_id, shop.http)
    refused = post(url, rpc("tools/call", {"name": "contact", "arguments": {}}), session_id, http=shop.http).json()
    assert refused["error"]["code"] == -32602 and refused["error"]["data"]["code"] == "unknown_tool"


def test_every_gunicorn_worker_lists_the_tools_of_the_new_configuration(tmp_path):
    site = start_site(tmp_path, workers=3, log_worker_pids=True)
    try:
        set_rate_limit(site, 1000)  # the bursts list the tools a hundred times or so
        url = f"{site.url}/mcp"
        session_id = open_session(url)

        def lists_contact(listed):
            def check():
                assert ("contact" in tools_of(url, session_id)) == listed
            return check

        on_every_worker(site, lists_contact(True), workers=3)
        config = json.loads(site.manage("agents_config", "export").stdout)
        next(c for c in config["capabilities"] if c["name"] == "contact")["enabled"] = False
        imported = site.manage("agents_config", "import", "-", input=json.dumps(config))
        assert imported.returncode == 0, imported.stderr
        on_every_worker(site, lists_contact(False), workers=3)
    finally:
        site.stop()


def test_llms_txt_and_the_a2a_card_link_the_mcp_server(shop):
    assert f"Model Context Protocol tools at `{shop}/mcp`" in shop.http.get(f"{shop}/llms.txt", timeout=TIMEOUT).text
    card = shop.http.get(f"{shop}/.well-known/agent-card.json", timeout=TIMEOUT).json()
    assert {"url": f"{shop}/mcp", "protocolBinding": "MCP", "protocolVersion": VERSION} in card["supportedInterfaces"]
    assert VERSION == LATEST_HANDSHAKE_VERSION  # the documents write it out; the server answers mcp_types' own


def test_the_endpoint_is_configurable_and_mcp_can_be_turned_off(shop):
    mcp = McpConfig.load()
    mcp.endpoint = "/.well-known/agents/mcp"
    mcp.save()
    assert post(f"{shop}/.well-known/agents/mcp", initialize_message(), http=shop.http).status_code == 200
    moved = post(f"{shop}/mcp", initialize_message(), http=shop.http)
    assert moved.status_code == 404 and moved.json()["error"]["data"]["code"] == "not_found"

    assert f"tools at `{shop}/.well-known/agents/mcp`" in shop.http.get(f"{shop}/llms.txt", timeout=TIMEOUT).text

    mcp.enabled = False
    mcp.save()
    assert post(f"{shop}/.well-known/agents/mcp", initialize_message(), http=shop.http).status_code == 404
    assert "MCP" not in shop.http.get(f"{shop}/llms.txt", timeout=TIMEOUT).text
    card = shop.http.get(f"{shop}/.well-known/agent-card.json", timeout=TIMEOUT).json()
    assert [i["protocolBinding"] for i in card["supportedInterfaces"]] == ["JSONRPC"]


@pytest.mark.urls("tests.shop_mcp_page_urls")
def test_a_shop_page_at_mcp_is_served_whenever_mcp_is_not_served_there(shop):
    served = post(f"{shop}/mcp", initialize_message(), http=shop.http)
    assert served.status_code == 200 and served.json()["result"]["serverInfo"]["name"]

    mcp = McpConfig.load()
    for change in ({"endpoint": "/.well-known/agents/mcp"}, {"endpoint": "/mcp", "enabled": False}):
        for name, value in change.items():
            setattr(mcp, name, value)
        mcp.save()
        page = shop.http.get(f"{shop}/mcp", timeout=TIMEOUT)
        assert (page.status_code, page.text) == (200, "Our Master Craftsman Programme"), change


# 3. The Streamable HTTP rules


def test_notifications_and_responses_are_accepted_with_202_and_no_body(shop):
    url = f"{shop}/mcp"
    session_id = open_session(url, http=shop.http)
    for message in ({"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "id": 7, "result": {}}):
        answer = post(url, message, session_id, http=shop.http)
        assert (answer.status_code, answer.content) == (202, b""), answer.text
        assert answer.headers["Content-Type"] == "application/json; charset=utf-8"  # never Django's text/html


def test_a_malformed_notification_is_400_and_an_unknown_one_is_accepted(shop):
    url = f"{shop}/mcp"
    session_id = open_session(url, http=shop.http)
    malformed = post(url, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": {}}},
                     session_id, http=shop.http)
    assert malformed.status_code == 400 and malformed.json()["error"]["data"]["code"] == "invalid_request"
    unknown = post(url, {"jsonrpc": "2.0", "method": "notifications/acme/whatever"}, session_id, http=shop.http)
    assert unknown.status_code == 202


def test_get_is_405_as_no_stream_is_offered(shop):
    url = f"{shop}/mcp"
    session_id = open_session(url, http=shop.http)
    answer = shop.http.get(url, headers={"Accept": "text/event-stream", "Mcp-Session-Id": session_id}, timeout=TIMEOUT)
    assert answer.status_code == 405 and "POST" in answer.headers["Allow"]
    assert answer.json()["error"]["data"]["code"] == "method_not_allowed"


def test_a_session_id_is_required_after_initialize_and_must_be_live(shop):
    url = f"{shop}/mcp"
    missing = post(url, rpc("tools/list"), http=shop.http)
    assert missing.status_code == 400 and missing.json()["error"]["data"]["code"] == "session_required"
    unknown = post(url, rpc("tools/list"), "not-a-session", http=shop.http)
    assert unknown.status_code == 404 and unknown.json()["error"]["data"]["code"] == "session_invalid"

    session_id = open_session(url, http=shop.http)
    assert post(url, rpc("ping"), session_id, http=shop.http).json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    ended = shop.http.delete(url, headers={"Mcp-Session-Id": session_id}, timeout=TIMEOUT)
    assert ended.status_code == 204
    after = post(url, rpc("ping"), session_id, http=shop.http)
    assert after.status_code == 404 and after.json()["error"]["data"]["code"] == "session_ended"
    assert shop.http.delete(url, timeout=TIMEOUT).status_code == 400


def test_an_agent_api_session_and_an_mcp_session_are_one_session(shop):
    """The Mcp-Session-Id is the session token: an MCP session's cart is the agent API's, and back."""
    url = f"{shop}/mcp"
    session_id = open_session(url, http=shop.http)
    added = post(url, rpc("tools/call", {"name": "cart.add", "arguments": {"item_id": "vase"}}), session_id,
                 http=shop.http).json()
    assert added["result"]["structuredContent"]["quantity"] == 1
    cart = shop.http.get(f"{shop}/.well-known/agents/api/cart/view", timeout=TIMEOUT,
                         headers={"Authorization": f"Bearer {session_id}"}).json()["data"]
    assert [item["item_id"] for item in cart["items"]] == ["vase"]
    token = make_agent_session().raw_token
    viewed = post(url, rpc("tools/call", {"name": "cart.view", "arguments": {}}), token, http=shop.http).json()
    assert viewed["result"]["structuredContent"]["cart_size"] == 0


def test_a_foreign_origin_is_403_and_the_sites_own_origin_is_served(shop):
    url = f"{shop}/mcp"
    foreign = post(url, initialize_message(), Origin="https://attacker.example", http=shop.http)
    assert foreign.status_code == 403 and foreign.json()["error"]["data"]["code"] == "forbidden_origin"
    assert post(url, initialize_message(), Origin=shop, http=shop.http).status_code == 200
    assert AgentSession.objects.count() == 1


def test_a_post_that_does_not_accept_json_is_406(shop):
    answer = post(f"{shop}/mcp", initialize_message(), Accept="text/html", http=shop.http)
    assert answer.status_code == 406 and answer.json()["error"]["data"]["code"] == "not_acceptable"
    assert not AgentSession.objects.exists()


def test_an_unsupported_protocol_version_header_is_400_and_a_delete_with_it_ends_nothing(shop):
    url = f"{shop}/mcp"
    session_id = open_session(url, http=shop.http)
    answer = post(url, rpc("tools/list", rpc_id=12), session_id, http=shop.http,
                  **{"MCP-Protocol-Version": "1999-01-01"})
    assert answer.status_code == 400 and answer.json()["error"]["data"]["code"] == "unsupported_protocol_version"
    assert answer.json()["id"] == 12  # the request's id was readable: the error answers it
    delete = shop.http.delete(url, headers={"Mcp-Session-Id": session_id, "MCP-Protocol-Version": "1999-01-01"},
                              timeout=TIMEOUT)
    assert delete.status_code == 400 and delete.json()["error"]["data"]["code"] == "unsupported_protocol_version"
    assert post(url, rpc("ping"), session_id, http=shop.http).status_code == 200


def test_initialize_negotiates_a_handshake_revision(shop):
    url = f"{shop}/mcp"
    for offered, answered in (("2025-06-18", "2025-06-18"), ("2025-03-26", VERSION), ("2099-01-01", VERSION),
                              ("2026-07-28", VERSION)):
        message = initialize_message()
        message["params"]["protocolVersion"] = offered
        assert post(url, message, http=shop.http).json()["result"]["protocolVersion"] == answered


MALFORMED_MESSAGES = {
    "not-json": (b'{"jsonrpc": "2.0", "id": 1, "method": ', 400, -32700, "invalid_json"),
    "not-json-rpc": (b'{"hello": "world"}', 400, -32600, "invalid_request"),
    "batch": (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', 400, -32600, "invalid_request"),
    "unknown-method": (b'{"jsonrpc": "2.0", "id": 1, "method": "resources/list"}', 200, -32601, "method_not_found"),
    "discover": (b'{"jsonrpc": "2.0", "id": 1, "method": "server/discover"}', 200, -32601, "method_not_found"),
    "arguments-not-an-object": (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", '
                                b'"params": {"name": "search", "arguments": [1]}}', 200, -32602, "invalid_params"),
    "name-not-a-text": (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 7}}',
                        200, -32602, "invalid_params"),
    "call-without-params": (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call"}', 200, -32602, "invalid_params"),
    "initialize-without-client-info": (b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", '
                                       b'"params": {"protocolVersion": "2025-11-25", "capabilities": {}}}',
                                       200, -32602, "invalid_params"),
    "id-null": (b'{"jsonrpc": "2.0", "id": null, "method": "tools/call", "params": {"name": "cart.view"}}',
                400, -32600, "invalid_request"),
    "id-true": (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', 400, -32600, "invalid_request"),
    "id-fraction": (b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', 400, -32600, "invalid_request"),
}


@pytest.mark.parametrize("body, status, rpc_code, code", MALFORMED_MESSAGES.values(), ids=list(MALFORMED_MESSAGES))
def test_a_malformed_message_is_a_json_rpc_error_never_a_500(shop, body, status, rpc_code, code):
    url = f"{shop}/mcp"
    session_id = open_session(url, http=shop.http)
    answer = shop.http.post(url, data=body, timeout=TIMEOUT, headers={
        "Accept": ACCEPT, "Content-Type": "application/json", "Mcp-Session-Id": session_id})
    assert answer.status_code == status and answer.headers["Content-Type"].startswith("application/json")
    error = answer.json()["error"]
    assert (error["code"], error["data"]["code"]) == (rpc_code, code), error
    sent = json.loads(body) if status == 200 else None  # a message read as a request is answered with its id
    assert answer.json()["id"] == (sent["id"] if sent else None), answer.json()  # JSON-RPC 2.0: null when unread
    assert not CartLine.objects.exists()


def test_a_body_without_content_length_is_an_http_411_not_a_200(live_shop):
    """Streamable HTTP: a message the server cannot accept gets an HTTP error status. A chunked body
    (no Content-Length) is refused before it is read."""
    url = f"{live_shop}/mcp"
    session_id = open_session(url)
    message = json.dumps(rpc("tools/call", {"name": "cart.add", "arguments": {"item_id": "x"}})).encode()
    answer = requests.post(url, data=iter([message]), timeout=TIMEOUT, headers={
        "Accept": ACCEPT, "Content-Type": "application/json", "Mcp-Session-Id": session_id})
    assert answer.status_code == 411 and "Content-Length" not in answer.request.headers
    assert answer.json()["id"] is None and answer.json()["error"]["data"]["code"] == "length_required"
    assert not CartLine.objects.exists()


@pytest.mark.parametrize("message", [
    rpc("resources/list"),
    rpc("tools/call", {"name": "no.such.tool", "arguments": {}}),
    rpc("tools/call", {"name": "search", "arguments": [1]}),
    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": {}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
], ids=["unknown-method", "unknown-tool", "bad-params", "malformed-notification", "notification"])
def test_the_session_is_checked_before_the_message_400_without_one_404_for_one_ended(shop, message):
    """Streamable HTTP: a request without Mcp-Session-Id is 400, one with a session not live is 404,
    whatever the message would have been refused for."""
    url = f"{shop}/mcp"
    missing = post(url, message, http=shop.http)
    assert missing.status_code == 400 and missing.json()["error"]["data"]["code"] == "session_required"
    # A bearer token that is not this transport's (a gateway's own)
    behind_a_gateway = post(url, message, Authorization="Bearer a-gateways-own-token", http=shop.http)
    assert behind_a_gateway.status_code == 400, behind_a_gateway.json()
    assert behind_a_gateway.json()["error"]["data"]["code"] == "session_required"
    session_id = open_session(url, http=shop.http)
    assert shop.http.delete(url, headers={"Mcp-Session-Id": session_id}, timeout=TIMEOUT).status_code == 204
    ended = post(url, message, session_id, http=shop.http)
    assert ended.status_code == 404 and ended.json()["error"]["data"]["code"] == "session_ended"


def test_an_agent_name_too_long_is_refused_as_invalid_params_and_opens_no_session(shop):
    answer = post(f"{shop}/mcp", initialize_message(name="x" * 201), http=shop.http)
    assert answer.status_code == 200
    assert answer.json()["error"]["data"] == {"code": "invalid_params", "status": 400,
                                              "fields": {"agent_name": "Must be at most 200 characters."}}
    assert not AgentSession.objects.exists()


def test_max_sessions_limits_initialize_with_429_and_retry_after(shop):
    url = f"{shop}/mcp"
    for _ in range(MAX_SESSIONS):  # the default max_sessions, none idle yet
        open_session(url, http=shop.http)
    over = post(url, initialize_message(), http=shop.http)
    assert over.status_code == 429 and int(over.headers["Retry-After"]) >= 1
    assert over.json()["error"]["data"]["code"] == "too_many_sessions"


@pytest.mark.parametrize("data, is_error", [
    ({"id": "mug", "price": Decimal("56.00"), "note": None, "tags": ["a", {"b": 1}]}, False),
    ({"ok": False, "error": "No such item.", "code": "not_found", "status": 404}, True),
    ([1, 2], False),
])
def test_a_tool_result_is_on_the_wire_what_the_official_call_tool_result_is(data, is_error):
    official = mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=codec.encode(data).decode())],
        structured_content=data if isinstance(data, dict) and not is_error else None, is_error=is_error,
    ).model_dump(by_alias=True, exclude_none=True)
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        ours = serialize_server_result("tools/call", version, tool_result(data, is_error))
        assert ours == serialize_server_result("tools/call", version, official)


def test_a_tool_refusal_is_an_is_error_result_with_the_envelope_and_changes_nothing(shop):
    url = f"{shop}/mcp"
    session_id = open_session(url, http=shop.http)
    answer = post(url, rpc("tools/call", {"name": "cart.add", "arguments": {"item_id": "mug", "quantity": "two"}}),
                  session_id, http=shop.http)
    assert answer.status_code == 200
    result = answer.json()["result"]
    assert result["isError"] is True
    envelope = json.loads(result["content"][0]["text"])
    assert envelope["code"] == "invalid_params" and envelope["status"] == 400 and "quantity" in envelope["fields"]
    assert "structuredContent" not in result  # it would have to match cart.add's outputSchema
    assert not CartLine.objects.exists()


# 4. The MCP Inspector's command-line mode, against gunicorn


@pytest.fixture(scope="module")
def inspector():
    """The Inspector, installed from the committed lockfile (npm ci, kept in the tests' build cache)."""
    return npm_installed(INSPECTOR_PROJECT) / "mcp-inspector"


def run_inspector(cli, home, *args):
    env = {**os.environ, "NO_COLOR": "1", "HOME": str(home), "MCP_CATALOG_PATH": str(Path(home) / "mcp.json")}
    done = subprocess.run([str(cli), "--cli", *args], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_the_mcp_inspector_cli_lists_the_tools_and_calls_one_on_gunicorn(inspector, tmp_path):
    site = start_site(tmp_path / "site", workers=2)
    try:
        demo = site.manage("load_demo_catalog")
        assert demo.returncode == 0, demo.stderr
        url = f"{site.url}/mcp"
        listed = run_inspector(inspector, tmp_path, url, "--transport", "http", "--method", "tools/list")
        assert {tool["name"] for tool in listed["tools"]} >= {"search", "detail", "cart.add", "checkout"}

        called = run_inspector(inspector, tmp_path, url, "--transport", "http", "--method", "tools/call",
                               "--tool-name", "search", "--tool-arg", "q=mug", "--tool-arg", "limit=2")
        assert called.get("isError") is not True, called
        results = called["structuredContent"]["results"]
        assert 1 <= len(results) <= 2 and all("mug" in item["name"].lower() for item in results)
    finally:
        site.stop()
