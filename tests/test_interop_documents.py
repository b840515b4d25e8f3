"""llms.txt, PactSpec, the A2A card and OpenAPI: one config, same caching as agents.json (over real HTTP),
the rest in process."""
import pytest
import requests
from llms_txt import parse_llms_file

from agents_protocol.models import Capability, RateLimitConfig, SiteProfile
from tests.api_client import IN_PROCESS_URL

DOCUMENTS = {
    "llms.txt": ("/llms.txt", "text/plain; charset=utf-8"),
    "pactspec": ("/.well-known/pactspec.json", "application/json; charset=utf-8"),
    "agent-card": ("/.well-known/agent-card.json", "application/json; charset=utf-8"),
    "openapi": ("/.well-known/agents/openapi.json", "application/json; charset=utf-8"),
}
PATHS = [path for path, _ in DOCUMENTS.values()]


def get(http, base_url, path, **headers):
    """`http`: requests, or tests/api_client.py's InProcessRequests."""
    return http.get(f"{base_url}{path}", headers=headers, timeout=10, allow_redirects=False)


@pytest.mark.parametrize("path, content_type", DOCUMENTS.values(), ids=DOCUMENTS.keys())
def test_etag_304_cache_control_and_cors_like_agents_json(live_server, path, content_type):
    first = get(requests, live_server.url, path)
    assert first.status_code == 200 and first.headers["Content-Type"] == content_type
    etag = first.headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert first.headers["Cache-Control"] == "public, max-age=0, must-revalidate"
    assert first.headers["Access-Control-Allow-Origin"] == "*"

    cached = get(requests, live_server.url, path, **{"If-None-Match": etag})
    assert cached.status_code == 304 and cached.content == b"" and cached.headers["ETag"] == etag

    limits = RateLimitConfig.load()
    limits.requests_per_minute = 42
    limits.save()
    changed = get(requests, live_server.url, path, **{"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


@pytest.mark.parametrize("path", PATHS, ids=DOCUMENTS.keys())
def test_documents_are_read_only_and_answer_preflight(http, path):
    write = http.post(f"{IN_PROCESS_URL}{path}", timeout=10)
    assert write.status_code == 405 and write.headers["Allow"] == "GET, HEAD, OPTIONS"
    assert write.json()["code"] == "method_not_allowed"
    preflight = http.options(f"{IN_PROCESS_URL}{path}", timeout=10,
                             headers={"Origin": "https://agent.example", "Access-Control-Request-Method": "GET"})
    assert preflight.status_code == 204 and preflight.headers["Access-Control-Allow-Origin"] == "*"


def test_every_document_follows_a_config_change(http):
    before = {path: get(http, IN_PROCESS_URL, path).text for path in PATHS}
    assert all("Acme Ceramics" in text and ("cart.remove" in text or "cart-remove" in text) for text in before.values())
    site = SiteProfile.load()
    site.name = "Zeta Pottery"
    site.save()
    Capability.objects.filter(name="cart.remove").update(enabled=False)
    Capability.objects.get(name="browse").save()  # an ORM update() skips signals; a save bumps the revision

    for path in PATHS:
        text = get(http, IN_PROCESS_URL, path).text
        assert "Zeta Pottery" in text and "Acme Ceramics" not in text, path
        assert "cart.remove" not in text and "cart-remove" not in text, path


def test_llms_txt_parses_with_llms_txt_and_has_seed_001_shape(http):
    text = get(http, IN_PROCESS_URL, "/llms.txt").text
    parsed = parse_llms_file(text)
    assert parsed.title == "Acme Ceramics"
    assert parsed.summary.startswith("Handmade ceramic mugs, bowls, vases, plates and planters. Agents discover")
    for label in ("**Quick start for agents**", "**Capabilities**", "**Auth**", "**Error handling**",
                  "**Session lifecycle**", "**Suggested flows**"):
        assert label in parsed.info
    rows = [line for line in parsed.info.splitlines() if line.startswith("| ") and "|---" not in line]
    assert rows[0] == "| Name | Method | Endpoint | Session | Description |"
    assert [row.split(" | ")[0:4] for row in rows[1:4]] == [
        ["| search", "GET", "/.well-known/agents/api/search", "no"],
        ["| browse", "GET", "/.well-known/agents/api/browse", "no"],
        ["| detail", "GET", "/.well-known/agents/api/detail/:id", "no"],
    ]
    declared = get(http, IN_PROCESS_URL, "/.well-known/agents.json").json()["capabilities"]
    assert [row.split(" | ")[0][2:] for row in rows[1:]] == [c["name"] for c in declared]
    assert "`Authorization: Bearer <session_token>`" in parsed.info
    assert "Sessions expire 1800 seconds after creation" in parsed.info

    docs = {link["title"]: link["url"] for link in parsed.sections["Docs"]}
    assert docs == {
        "agents.txt": f"{IN_PROCESS_URL}/.well-known/agents.txt",
        "agents.json": f"{IN_PROCESS_URL}/.well-known/agents.json",
        "OpenAPI": f"{IN_PROCESS_URL}/.well-known/agents/openapi.json",
    }
    optional = {link["title"]: link["url"] for link in parsed.sections["Optional"]}
    assert optional.pop("MCP server") == f"{IN_PROCESS_URL}/mcp"  # POST only: tests/test_interop_mcp.py
    for url in [*docs.values(), *optional.values()]:
        assert http.get(url, timeout=10).status_code == 200, url


def test_llms_txt_lists_the_docs_url_and_escapes_table_cells(http):
    site = SiteProfile.load()
    site.docs_url = "https://shop.example/docs/agents"
    site.save()
    contact = Capability.objects.get(name="contact")
    contact.description = "Write to us | we answer within a day"
    contact.save()

    parsed = parse_llms_file(get(http, IN_PROCESS_URL, "/llms.txt").text)
    assert {"title": "Documentation", "url": "https://shop.example/docs/agents",
            "desc": "the site's documentation for agents"} in parsed.sections["Docs"]
    row = next(line for line in parsed.info.splitlines() if line.startswith("| contact |"))
    assert "Write to us \\| we answer within a day" in row
    assert row.count(" | ") == 4
