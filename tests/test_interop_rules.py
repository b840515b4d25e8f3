"""The interop documents' sentences and links hold, in process: MCP grants no revision whose MUSTs
it does not meet (2025-03-26 and its batches) and docs/interop.md says what it answers; api.md names
the agents.json schema it follows by branch and commit; every link of llms.txt reads as a document;
a GET on the A2A endpoint is 405."""
import json
from pathlib import Path

import pytest
from llms_txt import parse_llms_file

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[1]
JSON = "application/json"


# 16. MCP revisions


def mcp_post(client, message, **headers):
    return client.post("/mcp", data=json.dumps(message), content_type=JSON,
                       HTTP_ACCEPT="application/json, text/event-stream", **headers)


def initialize(version):
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def test_mcp_does_not_grant_2025_03_26_whose_batches_it_refuses(client):
    assert mcp_post(client, initialize("2025-03-26")).json()["result"]["protocolVersion"] == "2025-11-25"
    assert mcp_post(client, initialize("2025-06-18")).json()["result"]["protocolVersion"] == "2025-06-18"
    session_id = mcp_post(client, initialize("2025-11-25"))["Mcp-Session-Id"]
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    pinned = mcp_post(client, ping, HTTP_MCP_SESSION_ID=session_id, HTTP_MCP_PROTOCOL_VERSION="2025-03-26")
    assert pinned.status_code == 400 and pinned.json()["error"]["data"]["code"] == "unsupported_protocol_version"
    batch = mcp_post(client, [ping], HTTP_MCP_SESSION_ID=session_id)
    assert batch.status_code == 400 and batch.json()["error"]["code"] == -32600


def test_interop_md_says_what_mcp_answers_without_the_version_header(client):
    session_id = mcp_post(client, initialize("2025-11-25"))["Mcp-Session-Id"]
    listed = mcp_post(client, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, HTTP_MCP_SESSION_ID=session_id)
    search = next(tool for tool in listed.json()["result"]["tools"] if tool["name"] == "search")
    assert "outputSchema" in search and search["title"] == "Search"
    discover = mcp_post(client, {"jsonrpc": "2.0", "id": 3, "method": "server/discover"})
    assert discover.status_code == 400 and discover.json()["error"]["data"]["code"] == "session_required"

    guide = " ".join((ROOT / "docs" / "interop.md").read_text().split())
    assert "without it `400` `session_required`" in guide
    assert "results are shaped for it (no `structuredContent`" not in guide
    assert "2025-03-26 is not granted" in guide


# 17. The agents.json schema we follow, named


def test_api_md_names_the_branch_and_commit_of_the_agents_json_schema():
    api = " ".join((ROOT / "docs" / "api.md").read_text().split())
    readme = " ".join((ROOT / "agents_protocol" / "schemas" / "README.md").read_text().split())
    for text in (api, readme):
        assert "claude/agents-protocol-jVQe1" in text and "3dce0f80da0ab2794c543bf3947679c3a6fec12f" in text
    assert "the canonical schema" not in api


# 18. Every linked document reads; A2A's GET is 405


def test_every_link_of_llms_txt_answers_a_get_with_a_document(client):
    parsed = parse_llms_file(client.get("/llms.txt").content.decode())
    urls = [link["url"] for links in parsed.sections.values() for link in links]
    assert urls
    for url in urls:
        assert client.get(url.removeprefix("http://testserver")).status_code == 200, url
    assert "**MCP**" in parsed.info and "http://testserver/mcp" in parsed.info


def test_a_get_on_the_a2a_endpoint_is_405_with_allow(client):
    answer = client.get("/.well-known/agents/a2a")
    assert answer.status_code == 405 and answer["Allow"] == "POST, OPTIONS"
    assert answer.json()["error"]["code"] == -32600
