"""agents.txt and agents.json in process: content, agreement, caching, freshness."""
import json
from pathlib import Path

import pytest
from jsonschema import Draft7Validator, FormatChecker

from agents_protocol.models import (
    Capability,
    Flow,
    FlowStep,
    RateLimitConfig,
    SessionConfig,
    SiteProfile,
)
from tests.api_client import IN_PROCESS_URL

PROJECT_SCHEMA = Path(__file__).resolve().parents[1] / "agents_protocol" / "schemas" / "agents.schema.json"


def parse_agents_txt(text):
    """Seed 002's minimal parser, step by step."""
    fields, allow, flows = {}, [], []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        key, value = line.split(":", 1)
        key, value = key.strip(), value.strip()
        if key.lower() == "allow":
            allow.append(value)
        elif key.lower() == "flow":
            name, steps = value.split("→")
            flows.append({"name": name.strip(), "steps": [s.strip() for s in steps.split(",")]})
        elif key.lower() == "flow-description":
            flows[-1]["description"] = value
        else:
            fields[key.lower()] = value
    return fields, allow, flows


def fetch(http, name, **headers):
    return http.get(f"{IN_PROCESS_URL}/.well-known/{name}", headers=headers, timeout=10)


@pytest.fixture
def documents(http):
    txt = fetch(http, "agents.txt")
    js = fetch(http, "agents.json")
    return txt, js


def test_content_types_are_exactly_those_of_the_seeds(documents):
    txt, js = documents
    assert txt.status_code == 200 and js.status_code == 200
    assert txt.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert js.headers["Content-Type"] == "application/json; charset=utf-8"


def test_agents_json_validates_with_format_checks(documents):
    """Against the canonical schema, which the app ships unchanged (agents_protocol/schemas/README.md)."""
    schema = json.loads(PROJECT_SCHEMA.read_text())
    errors = list(Draft7Validator(schema, format_checker=FormatChecker()).iter_errors(documents[1].json()))
    assert errors == []


def test_default_config_declares_seed_001_capabilities_order_status_and_purchase_flow(documents):
    document = documents[1].json()
    routes = {c["name"]: (c["method"], c["endpoint"]) for c in document["capabilities"]}
    api = "/.well-known/agents/api"
    assert routes == {
        "search": ("GET", f"{api}/search"),
        "browse": ("GET", f"{api}/browse"),
        "detail": ("GET", f"{api}/detail/:id"),
        "cart.add": ("POST", f"{api}/cart/add"),
        "cart.view": ("GET", f"{api}/cart/view"),
        "cart.update": ("PUT", f"{api}/cart/update"),
        "cart.remove": ("DELETE", f"{api}/cart/remove"),
        "checkout": ("POST", f"{api}/checkout"),
        "order.status": ("GET", f"{api}/order/status"),
        "contact": ("POST", f"{api}/contact"),
    }
    assert document["flows"] == [{
        "name": "purchase",
        "description": "Search for a product, view details, add to cart, and check out",
        "steps": ["search", "detail", "cart.add", "checkout"],
    }]
    assert document["session"]["ttl_seconds"] == 1800
    assert document["site"]["name"] == "Acme Ceramics"
    checkout = next(c for c in document["capabilities"] if c["name"] == "checkout")
    assert checkout["requires_session"] is True and checkout["human_handoff"] is True


def test_agents_txt_round_trips_and_agrees_with_agents_json(documents):
    txt, js = documents
    fields, allow, flows = parse_agents_txt(txt.text)
    document = js.json()
    assert fields["site"] == document["site"]["name"]
    assert fields["url"] == document["site"]["url"] == IN_PROCESS_URL
    assert fields["description"] == document["site"]["description"]
    assert fields["contact"] == document["site"]["contact"]
    assert fields["agents-json"] == f"{IN_PROCESS_URL}/.well-known/agents.json"
    assert allow == [c["name"] for c in document["capabilities"]]
    assert flows == document["flows"]
    assert fields["rate-limit"] == f"{document['rate_limit']['requests_per_minute']}/minute"
    assert fields["session-ttl"] == f"{document['session']['ttl_seconds']}s"
    assert fields["audit"] == str(document["audit"]["enabled"]).lower()


def test_every_change_is_served_at_once_and_disabled_capabilities_disappear(http):
    before = fetch(http, "agents.json")
    contact = Capability.objects.get(name="contact")
    contact.enabled = False
    contact.save()
    limits = RateLimitConfig.load()
    limits.requests_per_minute = 17
    limits.save()
    session = SessionConfig.load()
    session.ttl_seconds = 600
    session.save()

    after = fetch(http, "agents.json")
    fields, allow, _ = parse_agents_txt(fetch(http, "agents.txt").text)
    assert after.headers["ETag"] != before.headers["ETag"]
    assert "contact" not in [c["name"] for c in after.json()["capabilities"]]
    assert "contact" not in allow and "search" in allow
    assert after.json()["rate_limit"]["requests_per_minute"] == 17
    assert fields["rate-limit"] == "17/minute"
    assert fields["session-ttl"] == "600s" and after.json()["session"]["ttl_seconds"] == 600


def test_flow_changes_show_in_both_documents(http):
    flow = Flow.objects.create(name="browse-only", description="Look around")
    for position, name in enumerate(["browse", "detail"]):
        FlowStep.objects.create(flow=flow, capability=Capability.objects.get(name=name), position=position)
    _, _, flows = parse_agents_txt(fetch(http, "agents.txt").text)
    assert flows == fetch(http, "agents.json").json()["flows"]
    assert {"name": "browse-only", "description": "Look around", "steps": ["browse", "detail"]} in flows


def test_canonical_url_overrides_the_request_origin(http):
    site = SiteProfile.load()
    site.url = "https://acmeceramics.example.com"
    site.save()
    fields, _, _ = parse_agents_txt(fetch(http, "agents.txt").text)
    assert fields["agents-json"] == "https://acmeceramics.example.com/.well-known/agents.json"
    assert fetch(http, "agents.json").json()["site"]["url"] == "https://acmeceramics.example.com"


@pytest.mark.parametrize("name", ["agents.json", "agents.txt"])
def test_etag_and_conditional_get(http, name):
    first = fetch(http, name)
    etag = first.headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert "max-age=" in first.headers["Cache-Control"]
    assert first.headers["Access-Control-Allow-Origin"] == "*"

    cached = fetch(http, name, **{"If-None-Match": etag})
    assert cached.status_code == 304 and cached.content == b""
    assert cached.headers["ETag"] == etag

    other = fetch(http, name, **{"If-None-Match": '"something-else"'})
    assert other.status_code == 200 and other.content == first.content

    limits = RateLimitConfig.load()
    limits.requests_per_minute = 99
    limits.save()
    changed = fetch(http, name, **{"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


@pytest.mark.parametrize("name", ["agents.json", "agents.txt"])
def test_documents_refuse_writes_with_a_405_envelope(http, name):
    response = http.post(f"{IN_PROCESS_URL}/.well-known/{name}", timeout=10)
    assert response.status_code == 405
    assert response.headers["Allow"] == "GET, HEAD, OPTIONS"
    assert response.json() == {"ok": False, "error": "This document is read-only; use GET.",
                               "code": "method_not_allowed"}


@pytest.mark.parametrize("name", ["agents.json", "agents.txt"])
def test_documents_answer_cors_preflight(http, name):
    response = http.options(
        f"{IN_PROCESS_URL}/.well-known/{name}",
        headers={"Origin": "https://agent.example", "Access-Control-Request-Method": "GET"},
        timeout=10,
    )
    assert response.status_code == 204
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "GET" in response.headers["Access-Control-Allow-Methods"]


def test_storefront_html_advertises_agents_json(http):
    response = http.get(f"{IN_PROCESS_URL}/", timeout=10)
    assert response.status_code == 200
    assert 'rel="agents"' in response.headers["Link"]
    assert "</.well-known/agents.json>" in response.headers["Link"]
    assert '<link rel="agents" href="/.well-known/agents.json">' in response.text


@pytest.fixture
def app_urls_with(monkeypatch):
    """agents_protocol.urls with the routes given added, for this test only."""
    from django.urls import clear_url_caches

    from agents_protocol import urls
    from agents_protocol.http.middleware import answered_first, document_paths

    def forget():
        clear_url_caches()
        answered_first.cache_clear()
        document_paths.cache_clear()

    def add(*routes):
        monkeypatch.setattr(urls, "urlpatterns", [*routes, *urls.urlpatterns])
        forget()

    yield add
    monkeypatch.undo()
    forget()


@pytest.mark.urls("tests.urls_without_the_app")
def test_a_document_route_added_to_the_apps_urls_alone_is_answered_by_the_middleware(http, app_urls_with):
    """agents_protocol.urls is the one table: the middleware answers the documents it routes, even
    for a site whose URLconf does not include it (which check E006 reports)."""
    from django.urls import path

    from agents_protocol.http.documents import document_view

    app_urls_with(path(".well-known/agents-copy.txt", document_view("agents.txt")))
    copy = http.get(f"{IN_PROCESS_URL}/.well-known/agents-copy.txt", timeout=10)
    original = fetch(http, "agents.txt")
    assert copy.status_code == 200 and copy.text == original.text
