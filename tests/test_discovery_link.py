"""Every answer of the site carries `Link: </.well-known/agents.json>; rel="agents"`, exactly once.

The protocol's interaction API lists the header as "present on every response for discovery".
In process for pages, the agent API, A2A and PactSpec, documents, errors and redirects; over real
HTTP, a production gunicorn instance for what only a real server does (WhiteNoise's static files,
SecurityMiddleware's HTTPS redirect, /healthz as a probe gets it).
"""
import json
import secrets
import subprocess
import sys

import pytest
import requests
from django.http import HttpResponse
from requests.utils import parse_header_links

from agents_protocol.http.discovery_link import AGENTS_LINK, add_agents_link
from tests.api_client import API, IN_PROCESS_URL, SESSION_PATH
from tests.factories import make_product
from tests.servers import ROOT, migrate, serve_site, site_env
from tests.transports import TIMEOUT, TRANSPORTS

AGENTS_JSON = "/.well-known/agents.json"


def agents_links(response):
    """The links of every `Link` field of the response whose relation types include `agents`."""
    fields = response.raw.headers.getlist("Link")
    links = [link for field in fields for link in parse_header_links(field)]
    return [link for link in links if "agents" in link.get("rel", "").lower().split()]


def assert_one_agents_link(response):
    links = agents_links(response)
    assert links == [{"url": AGENTS_JSON, "rel": "agents", "type": "application/json"}], (
        response.status_code, response.raw.headers.getlist("Link"))


def fetch(site, method, path, **kwargs):
    """`site`: a running server's base URL, or tests/api_client.py's InProcessRequests."""
    http, base_url = (requests, site) if isinstance(site, str) else (site, IN_PROCESS_URL)
    return http.request(method, base_url + path, allow_redirects=False, timeout=TIMEOUT, **kwargs)


@pytest.fixture
def site(http):
    """A product for sale; returns `http`, which reaches the site in process."""
    make_product(public_id="mug", slug="mug", stock=5)
    return http


@pytest.mark.parametrize("method, path, status", [
    ("GET", "/", 200),  # an HTML page
    ("GET", "/products/mug/", 200),
    ("GET", f"{API}/search?q=mug", 200),  # the agent API
    ("POST", SESSION_PATH, 201),
    ("GET", f"{API}/cart/view", 401),
    ("GET", f"{API}/teleport", 404),  # the API's 404 envelope
    ("DELETE", f"{API}/search", 405),
    ("OPTIONS", f"{API}/cart/add", 204),  # a CORS preflight
    ("GET", AGENTS_JSON, 200),  # the documents
    ("GET", "/.well-known/agents.txt", 200),
    ("GET", "/llms.txt", 200),
    ("GET", "/.well-known/agents/openapi.json", 200),
    ("POST", AGENTS_JSON, 405),
    ("GET", "/no-such-page/", 404),  # Django's HTML 404 page
    ("GET", "/.well-known/no-such-document", 404),
    ("GET", "/admin", 301),  # APPEND_SLASH's redirect (CommonMiddleware)
    ("GET", "/admin/", 302),  # the admin's redirect to its login page
    ("GET", "/healthz", 200),  # answered by the health check's middleware
])
def test_every_kind_of_answer_carries_one_agents_link(site, method, path, status):
    response = fetch(site, method, path)
    assert response.status_code == status, response.text[:300]
    assert_one_agents_link(response)


def test_a_not_modified_document_carries_it_too(site):
    etag = fetch(site, "GET", AGENTS_JSON).headers["ETag"]
    response = fetch(site, "GET", AGENTS_JSON, headers={"If-None-Match": etag})
    assert response.status_code == 304
    assert_one_agents_link(response)


@pytest.mark.parametrize("name", list(TRANSPORTS))
def test_a2a_and_pactspec_answers_carry_it(site, name):
    transport = TRANSPORTS[name](site.django_client)
    for outcome in (transport.call("search", {"q": "mug"}), transport.call("cart.view")):
        fields = [value for key, value in outcome.headers.items() if key.lower() == "link"]
        links = [link for field in fields for link in parse_header_links(field) if link.get("rel") == "agents"]
        assert [link["url"] for link in links] == [AGENTS_JSON], (name, outcome.http_status, fields)


def test_a_response_that_links_agents_json_already_keeps_its_own_link():
    own = '</.well-known/agents.json>; rel="agents"'
    assert add_agents_link(response_with_link(own))["Link"] == own
    assert add_agents_link(response_with_link('</x>; rel="preload agents"'))["Link"] == '</x>; rel="preload agents"'
    assert add_agents_link(response_with_link("</style.css>; rel=preload"))["Link"] == (
        f"</style.css>; rel=preload, {AGENTS_LINK}")
    assert add_agents_link(response_with_link('</a>; rel="agentsx"'))["Link"] == f'</a>; rel="agentsx", {AGENTS_LINK}'
    assert add_agents_link(HttpResponse())["Link"] == AGENTS_LINK


def response_with_link(value):
    response = HttpResponse()
    response["Link"] = value
    return response


@pytest.fixture(scope="module")
def production_site(tmp_path_factory):
    """A production instance as the image runs it (static files collected, HTTPS redirect on)."""
    base = tmp_path_factory.mktemp("link-production")
    env = site_env(base / "data", DJANGO_ENV="production", SECRET_KEY=secrets.token_urlsafe(50),
                   STATIC_ROOT=str(base / "collected"))
    collected = site_manage(env, "collectstatic", "--noinput", "-v0")
    assert collected.returncode == 0, collected.stderr
    migrate(env)
    site = serve_site(env, workers=1)
    yield site.url
    site.stop()


def site_manage(env, *args):
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, check=False,
                          text=True, timeout=120)


HTTPS = {"X-Forwarded-Proto": "https"}  # as a TLS-terminating proxy on 127.0.0.1 says (gunicorn trusts it)


@pytest.mark.parametrize("path, headers, status", [
    ("/static/css/site.css", HTTPS, 200),  # WhiteNoise answers before Django's URLconf
    ("/static/no-such-file.css", HTTPS, 404),
    ("/", {}, 301),  # SecurityMiddleware's redirect to HTTPS
    (f"{API}/search?q=mug", {}, 308),  # the agents' paths: a 308 in the envelope (below)
    ("/healthz", {}, 200),  # the health check, first in the stack after the link
    ("/", HTTPS, 200),
    (f"{API}/search?q=mug", HTTPS, 200),
    (AGENTS_JSON, HTTPS, 200),
])
def test_a_real_server_adds_it_to_static_files_redirects_and_health_checks(production_site, path, headers, status):
    response = fetch(production_site, "GET", path, headers=headers)
    assert response.status_code == status, response.text[:300]
    assert_one_agents_link(response)
    if path == "/static/css/site.css":
        assert response.content == (ROOT / "static/css/site.css").read_bytes()
    if path == "/healthz":
        assert json.loads(response.content)["ok"] is True


@pytest.mark.parametrize("method, path", [("POST", f"{API}/cart/add"), ("GET", AGENTS_JSON), ("POST", "/mcp")])
def test_plain_http_to_an_agent_path_is_a_308_that_keeps_the_method(production_site, method, path):
    """SecurityMiddleware's 301 made HTTP clients send a POST again as a GET, without its body, to
    a path that then answered 405. A 308 keeps the method and body (RFC 9110 15.4.9)."""
    answer = fetch(production_site, method, path, json={"item_id": "mug"} if method == "POST" else None)
    assert answer.status_code == 308
    assert answer.headers["Location"] == "https://" + production_site.split("://", 1)[1] + path
    assert answer.headers["Content-Type"] == "application/json; charset=utf-8"
    assert answer.json()["code"] == "https_required" and answer.json()["ok"] is False
