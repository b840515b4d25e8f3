"""Conformance: the wire assertions of the protocol's public documents, replayed over HTTP.

The documents are the protocol's own spec texts, from two branches of its public repository
that disagree in places (tests/reference/protocol-spec/: agents-protocol/ and review-repo/,
each with agents-txt.md, agents-json.md, interaction-api.md, session.md and audit.md). Each test
replays one assertion against the site, in process (requests' API answered by Django's test client:
tests/api_client.py's InProcessRequests; the documents' wire over a socket is tested in
tests/test_http_edges.py and tests/test_interop_*.py), and quotes, in its docstring, the sentence
it comes from, as a paragraph of its own:

    <file>.md (<agents-protocol | review-repo | both branches>): "<the words, verbatim>"

(`" … "` joins two excerpts of the same file.) Where the branches disagree, the test follows the
profile (docs/api.md names where it differs). Where the profile deliberately differs from a quoted sentence,
the test asserts this site's behaviour and says so in a paragraph

    Deliberate difference (docs/api.md: "<entry>"): …

naming the entry of docs/api.md's "Where this profile differs from the protocol's documents, and
why" that gives the reason.

The meta tests at the end keep the rule: every test quotes a source, every quotation is verbatim
in the file(s) it names, every difference named in a
docstring is an entry of docs/api.md and every entry there is asserted by a test.

Fast: no real waiting. Session deadlines are moved in the database (as tests/test_api_sessions.py
does) and django-ratelimit's clock is frozen and moved by hand (as tests/test_limits_api.py does;
the site answers in this process). Each test runs in a transaction rolled back after it, so
sessions cannot be shared between tests; each test opens only the sessions it needs.
"""
import base64
import hashlib
import inspect
import json
import re
import time
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
import requests
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import load_der_public_key
from django.core.management import call_command
from django.utils import timezone
from django_ratelimit import core as ratelimit_core
from jsonschema import Draft7Validator, FormatChecker
from requests.utils import parse_header_links

from agents_protocol.audit.lifecycle import rotate_key
from agents_protocol.core.capabilities import register, unregister
from agents_protocol.models import (
    AgentSession,
    AuditConfig,
    Capability,
    RateLimitConfig,
    SessionConfig,
)
from tests.api_client import API, IN_PROCESS_URL, SESSION_PATH, TIMEOUT, Site, assert_error, ok_data
from tests.factories import make_product

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "reference" / "protocol-spec"
PROJECT_SCHEMA = ROOT / "agents_protocol" / "schemas" / "agents.schema.json"
API_DOC = ROOT / "docs" / "api.md"

AGENTS_JSON = "/.well-known/agents.json"
AGENTS_TXT = "/.well-known/agents.txt"
MUG, BOWL = "conformance-mug", "conformance-bowl"
JSON_UTF8 = "application/json; charset=utf-8"


# --------------------------------------------------------------------------- fixtures and helpers

@pytest.fixture(autouse=True)
def signing_key_file(settings, tmp_path):
    """Audit signatures with a key of this test's own (the site's DATA_DIR key is left alone)."""
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "SIGNING_KEY": None,
                                "SIGNING_KEY_FILE": tmp_path / "audit_signing_key"}


@pytest.fixture
def site(http):
    """The site in process, with two products for sale."""
    make_product(public_id=MUG, slug=MUG, name="Conformance Mug", stock=10)
    make_product(public_id=BOWL, slug=BOWL, name="Conformance Bowl", stock=10)
    return Site(IN_PROCESS_URL, http)


@pytest.fixture
def clock(monkeypatch):
    """django-ratelimit's clock (the one behind X-RateLimit-Reset and Retry-After), frozen at a Unix time."""
    clock = SimpleNamespace(now=1_800_000_000.0)
    monkeypatch.setattr(ratelimit_core, "time", SimpleNamespace(time=lambda: clock.now))
    return clock


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def send(site, method, path, token=None, params=None, headers=None, **kwargs):
    """One request as the documents describe it: GET parameters in the query string, others a JSON body."""
    headers = {**(bearer(token) if token else {}), **(headers or {})}
    if params is not None:
        kwargs["params" if method == "GET" else "json"] = params
    return site.http.request(method, site + path, headers=headers, timeout=TIMEOUT, allow_redirects=False, **kwargs)


def new_session(site, **agent):
    return ok_data(site.http.post(site + SESSION_PATH, json=agent or None, timeout=TIMEOUT), 201)


def end_session(site, token):
    return ok_data(send(site, "DELETE", SESSION_PATH, token))


def agents_json(site):
    return site.http.get(site + AGENTS_JSON, timeout=TIMEOUT).json()


def agents_txt_fields(site):
    """[(key, value)] of agents.txt, read as both branches' minimal parser does."""
    fields = []
    for line in site.http.get(site + AGENTS_TXT, timeout=TIMEOUT).text.splitlines():
        if line.strip() and not line.startswith("#"):
            key, value = line.split(":", 1)
            fields.append((key.strip(), value.strip()))
    return fields


def txt_value(fields, key):
    (value,) = [v for k, v in fields if k.lower() == key.lower()]
    return value


def audit_path(document, session_id):
    return document["audit"]["endpoint"].replace(":session_id", session_id)


def set_limits(requests_per_minute=None, max_sessions=None):
    config = RateLimitConfig.load()
    if requests_per_minute is not None:
        config.requests_per_minute = requests_per_minute
    if max_sessions is not None:
        config.max_sessions = max_sessions
    config.save()


def set_ttl(seconds):
    config = SessionConfig.load()
    config.ttl_seconds = seconds
    config.save()


def turn_audit_off():
    config = AuditConfig.load()
    config.enabled = False
    config.save()


def move_deadline(session_id, seconds):
    """Move a session's creation and deadline `seconds` into the past (its TTL passing without a wait)."""
    stored = AgentSession.objects.get(public_id=session_id)
    AgentSession.objects.filter(pk=stored.pk).update(created_at=stored.created_at - timedelta(seconds=seconds),
                                                     expires_at=stored.expires_at - timedelta(seconds=seconds))


def expire_in(session_id, seconds):
    AgentSession.objects.filter(public_id=session_id).update(expires_at=timezone.now() + timedelta(seconds=seconds))


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def capability_call(capability, item_id=MUG):
    """(method, path, params) calling a declared capability, `:name` segments filled in."""
    path = "/".join(item_id if segment.startswith(":") else segment for segment in capability["endpoint"].split("/"))
    params = {"item_id": item_id, "quantity": 1} if capability["name"].startswith("cart.") else None
    return capability["method"], path, params


def event_hash(event):
    """sha256 of the event's RFC 8785 canonical JSON, without its own event_hash (the artifact's canonicalization)."""
    content = {key: value for key, value in event.items() if key != "event_hash"}
    return hashlib.sha256(rfc8785.dumps(content)).hexdigest()


def first_broken_link(events):
    """The index of the first event whose prev_hash is not the hash of the event before it, else None."""
    previous = ""
    for index, event in enumerate(events):
        if event["prev_hash"] != previous:
            return index
        previous = event_hash(event)
    return None


@pytest.fixture
def trail(site):
    """One audited session: a search with its token, an add, a refused add, an unknown item, a
    contact message; its trail fetched while live (425), then ended and fetched (the artifact)."""
    session = new_session(site, agent_name="conformance-agent", agent_version="1.0", purpose="replay the documents")
    token = session["session_token"]
    calls = [
        ("GET", f"{API}/search", {"q": "Conformance"}),
        ("POST", f"{API}/cart/add", {"item_id": MUG, "quantity": 2}),
        ("POST", f"{API}/cart/add", {"item_id": MUG, "quantity": 0}),
        ("GET", f"{API}/detail/no-such-item", None),
        ("POST", f"{API}/contact", {"name": "Ada", "email": "ada@example.com", "message": "Do you ship to Lisbon?"}),
    ]
    answers = [send(site, method, path, token, params) for method, path, params in calls]
    document = agents_json(site)
    live = send(site, "GET", audit_path(document, session["session_id"]), token)
    ended = end_session(site, token)
    fetched = site.http.get(ended["audit_url"], headers=bearer(token), timeout=TIMEOUT)
    return SimpleNamespace(session=session, token=token, calls=calls, answers=answers, live=live, ended=ended,
                           fetched=fetched, artifact=ok_data(fetched), document=document)


# --------------------------------------------------------------------------- agents.txt

def test_agents_txt_is_served_at_its_well_known_path(site):
    """GET /.well-known/agents.txt answers 200 with the file.

    agents-txt.md (both branches): "Every participating site serves this file at:" … "https://<domain>/.well-known/agents.txt"
    """
    response = site.http.get(site + AGENTS_TXT, timeout=TIMEOUT)
    assert response.status_code == 200
    assert response.text.startswith("# agents.txt")


def test_agents_txt_is_plain_text_in_utf8(site):
    """agents.txt's Content-Type, exactly.

    agents-txt.md (both branches): "The file MUST be served with `Content-Type: text/plain; charset=utf-8`."
    """
    assert site.http.get(site + AGENTS_TXT, timeout=TIMEOUT).headers["Content-Type"] == "text/plain; charset=utf-8"


def test_agents_txt_lines_are_fields_comments_or_blank(site):
    """Every line of agents.txt is blank, a `#` comment, or `Key: Value`.

    agents-txt.md (both branches): "1. Each line is either a **field**, a **comment**, or **blank**. 2. Fields use the format `Key: Value`."
    """
    text = site.http.get(site + AGENTS_TXT, timeout=TIMEOUT).text
    for line in text.splitlines():
        assert not line.strip() or line.startswith("#") or re.fullmatch(r"[A-Za-z][A-Za-z-]*: \S.*", line), line


def test_agents_txt_names_the_site_and_its_url(site):
    """`Site` and `URL` (with scheme) are present; URL is the site's.

    agents-txt.md (review-repo): "| `Site` | Yes | Human-readable site name. | | `URL` | Yes | Canonical site URL (with scheme). |"

    Deliberate difference (docs/api.md: "agents.txt fields"): the agents-protocol branch names the
    site with `Name`; the profile follows seed 002 (the review-repo branch).
    """
    fields = agents_txt_fields(site)
    assert txt_value(fields, "Site") == agents_json(site)["site"]["name"]
    assert txt_value(fields, "URL") == site and urlsplit(site).scheme == "http"


def test_agents_txt_allows_one_capability_per_line(site):
    """One `Allow` line per capability, the same capabilities agents.json declares, in its order.

    agents-txt.md (review-repo): "| `Allow` | Yes | One capability the site supports. Repeat for each capability (one per line). |"

    Deliberate difference (docs/api.md: "agents.txt fields"): the agents-protocol branch lists
    them in one comma-separated `Capabilities` field.
    """
    allowed = [value for key, value in agents_txt_fields(site) if key == "Allow"]
    assert allowed == [c["name"] for c in agents_json(site)["capabilities"]]
    assert not [key for key, _ in agents_txt_fields(site) if key.lower() == "capabilities"]


def test_agents_txt_points_at_agents_json(site):
    """`Agents-JSON` is `<URL>/.well-known/agents.json`, and it answers.

    agents-txt.md (review-repo): "| `Agents-JSON` | No | URL to the machine-readable `agents.json` file. Defaults to `<URL>/.well-known/agents.json`. |"
    """
    fields = agents_txt_fields(site)
    url = txt_value(fields, "Agents-JSON")
    assert url == txt_value(fields, "URL") + AGENTS_JSON
    assert site.http.get(url, timeout=TIMEOUT).status_code == 200


def test_agents_txt_rate_limit_is_a_number_per_minute(site):
    """`Rate-Limit: <n>/minute`, n being agents.json's requests_per_minute.

    agents-txt.md (review-repo): "| `Rate-Limit` | No | Maximum requests per minute. Format: `<number>/minute`. Agents SHOULD respect this. |"

    Deliberate difference (docs/api.md: "agents.txt fields"): the agents-protocol branch writes
    a bare number (`Rate-Limit: 60`).
    """
    set_limits(requests_per_minute=42)
    assert txt_value(agents_txt_fields(site), "Rate-Limit") == "42/minute"
    assert agents_json(site)["rate_limit"]["requests_per_minute"] == 42


def test_agents_txt_session_ttl_is_seconds_with_an_s(site):
    """`Session-TTL: <n>s`, 1800s by default, n being agents.json's ttl_seconds.

    agents-txt.md (review-repo): "| `Session-TTL` | No | Session time-to-live. Format: `<number>s`. Default: `1800s` (30 minutes). |"

    Deliberate difference (docs/api.md: "agents.txt fields"): the agents-protocol branch writes
    a bare number of seconds.
    """
    assert txt_value(agents_txt_fields(site), "Session-TTL") == "1800s"
    set_ttl(600)
    assert txt_value(agents_txt_fields(site), "Session-TTL") == "600s"
    assert agents_json(site)["session"]["ttl_seconds"] == 600


def test_agents_txt_says_whether_audit_is_on(site):
    """`Audit: true` with audit on, `false` with it off, as agents.json's audit.enabled.

    agents-txt.md (both branches): "| `Audit` | No | Whether audit trails are enabled. `true` or `false`. Default: `false`. |"
    """
    assert txt_value(agents_txt_fields(site), "Audit") == "true" and agents_json(site)["audit"]["enabled"] is True
    turn_audit_off()
    assert txt_value(agents_txt_fields(site), "Audit") == "false" and agents_json(site)["audit"]["enabled"] is False


def test_agents_txt_audit_endpoint_has_the_session_id_placeholder(site):
    """`Audit-Endpoint` is an absolute URL ending in `/audit/:session_id`.

    agents-txt.md (review-repo): "| `Audit-Endpoint` | No | URL to retrieve audit artifacts. Format includes `:session_id` placeholder. |"

    Deliberate difference (docs/api.md: "agents.txt fields"): the agents-protocol branch
    defaults it to `<Agent-API>/audit`, with no placeholder.
    """
    assert txt_value(agents_txt_fields(site), "Audit-Endpoint") == f"{site}{API}/audit/:session_id"


def test_agents_txt_flows_are_agents_json_flows(site):
    """`Flow: <name> → <steps>` then its `Flow-Description`, as agents.json's flows.

    agents-txt.md (review-repo): "Flow: <name> → <step1>, <step2>, <step3> Flow-Description: <human-readable description>"
    """
    fields = agents_txt_fields(site)
    flows = [value for key, value in fields if key == "Flow"]
    descriptions = [fields[i + 1] for i, (key, _) in enumerate(fields) if key == "Flow"]
    declared = agents_json(site)["flows"]
    assert flows == [f"{f['name']} → {', '.join(f['steps'])}" for f in declared]
    assert descriptions == [("Flow-Description", f["description"]) for f in declared]


# --------------------------------------------------------------------------- agents.json

def test_agents_json_is_served_at_its_well_known_path(site):
    """GET /.well-known/agents.json answers 200 with a JSON object (this site has sessions and audit).

    agents-json.md (both branches): "Every participating site serves this file at:" … "https://<domain>/.well-known/agents.json"

    agents-txt.md (both branches): "However, any site that supports sessions or audit MUST also serve `agents.json`."
    """
    response = site.http.get(site + AGENTS_JSON, timeout=TIMEOUT)
    assert response.status_code == 200
    assert response.json()["session"] and response.json()["audit"]["enabled"] is True


def test_agents_json_is_json_in_utf8(site):
    """agents.json's Content-Type, exactly.

    agents-json.md (both branches): "The file MUST be served with `Content-Type: application/json; charset=utf-8`."
    """
    assert site.http.get(site + AGENTS_JSON, timeout=TIMEOUT).headers["Content-Type"] == JSON_UTF8


def test_agents_json_validates_against_the_canonical_schema(site):
    """The served document is valid against the canonical draft-07 schema, with format checks.

    agents-json.md (agents-protocol): "The canonical JSON Schema is at [`schemas/agents.schema.json`](schemas/agents.schema.json) (JSON Schema draft-07)."

    agents-json.md (agents-protocol): "Implementations SHOULD validate `agents.json` against the [JSON Schema](schemas/agents.schema.json) before using it."
    """
    validator = Draft7Validator(json.loads(PROJECT_SCHEMA.read_text()), format_checker=FormatChecker())
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(agents_json(site))]
    assert not errors, errors


def test_agents_json_schema_version_is_semver(site):
    """schema_version is "0.1.0", a semver string.

    agents-json.md (agents-protocol): "1. `schema_version` is present and is a valid semver string."

    Deliberate difference (docs/api.md: "schema_version"): the review-repo branch's example says
    `"1.0"`, which is not semver; the profile follows seed 000 and the canonical schema.
    """
    version = agents_json(site)["schema_version"]
    assert version == "0.1.0" and re.fullmatch(r"\d+\.\d+\.\d+", version)


def test_agents_json_names_the_site(site):
    """site.name and site.url are there; site.url is this site's absolute URL.

    agents-json.md (both branches): "2. `site.name` and `site.url` are present."
    """
    document = agents_json(site)
    assert document["site"]["name"] == "Acme Ceramics" and document["site"]["url"] == site


def test_agents_json_lists_capabilities_each_with_name_endpoint_and_method(site):
    """A non-empty capabilities array; each entry has name, endpoint and method.

    agents-json.md (both branches): "3. `capabilities` is a non-empty array. 4. Each capability has `name`, `endpoint`, and `method`."
    """
    capabilities = agents_json(site)["capabilities"]
    assert capabilities
    assert all({"name", "endpoint", "method"} <= set(c) for c in capabilities)


def test_capability_names_are_lowercase_with_dots(site):
    """Every capability name is lowercase letters, digits, dots (and underscores).

    agents-json.md (agents-protocol): "Capability identifier. Lowercase, may contain dots and underscores (`search`, `cart.add`)."

    agents-json.md (review-repo): "Capability identifier. Lowercase, may contain dots (`search`, `cart.add`)."
    """
    assert all(re.fullmatch(r"[a-z][a-z0-9_.]*", c["name"]) for c in agents_json(site)["capabilities"])


def test_every_declared_capability_is_served_at_its_endpoint_with_its_method(site):
    """Each endpoint is an origin-relative path with a documented method, and the site answers it there.

    agents-json.md (both branches): "URL path for this capability, relative to the site origin."

    agents-json.md (agents-protocol): "| `method` | string | Yes | HTTP method: `GET`, `POST`, `PUT`, `PATCH`, or `DELETE`. |"
    """
    token = new_session(site)["session_token"]
    for capability in agents_json(site)["capabilities"]:
        assert capability["endpoint"].startswith("/") and "//" not in capability["endpoint"], capability
        assert capability["method"] in {"GET", "POST", "PUT", "PATCH", "DELETE"}, capability
        method, path, params = capability_call(capability)
        response = send(site, method, path, token, params)
        assert response.status_code != 405 and response.json().get("code") != "not_found", (capability, response.text)


def test_requires_session_is_what_the_api_enforces(site):
    """Without a token: every capability declaring requires_session answers 401, every other one does not.

    agents-json.md (both branches): "| `requires_session` | boolean | No | Whether the agent must have an active session. Default: `false`. |"

    session.md (review-repo): "6. You do NOT need a session for `search`, `browse`, `detail`, or `contact`."

    agents-txt.md (review-repo): "- `cart.add` — Add an item to a cart (requires session)."
    """
    capabilities = agents_json(site)["capabilities"]
    declared = {c["name"]: c.get("requires_session", False) for c in capabilities}
    assert [name for name, required in declared.items() if not required][:3] == ["search", "browse", "detail"]
    assert declared["contact"] is False and declared["cart.add"] is True
    for capability in capabilities:
        method, path, params = capability_call(capability)
        response = send(site, method, path, None, params)
        if declared[capability["name"]]:
            assert_error(response, 401, "session_required")
        else:
            assert response.status_code != 401, (capability, response.text)


def test_parameter_types_are_the_documented_ones(site):
    """Every parameter descriptor's type is one of the six.

    agents-json.md (both branches): "| `type` | string | Yes | `string`, `number`, `integer`, `boolean`, `array`, or `object`. |"
    """
    types = {p["type"] for c in agents_json(site)["capabilities"] for p in c.get("params", {}).values()}
    assert types and types <= {"string", "number", "integer", "boolean", "array", "object"}


def test_session_create_and_delete_are_the_urls_that_create_and_end_sessions(site):
    """POST to session.create makes a session; DELETE to session.delete ends it.

    agents-json.md (agents-protocol): "| `create` | string | Yes | URL path to create a session (POST). | | `delete` | string | No | URL path to end a session (DELETE). Defaults to the `create` URL. |"
    """
    declared = agents_json(site)["session"]
    created = ok_data(site.http.post(site + declared["create"], timeout=TIMEOUT), 201)
    ended = ok_data(site.http.delete(site + declared["delete"], headers=bearer(created["session_token"]),
                                     timeout=TIMEOUT))
    assert ended["ended"] is True


def test_session_ttl_seconds_is_1800_by_default_and_at_least_60(site):
    """agents.json's session.ttl_seconds: 1800 by default; at least 60.

    agents-json.md (agents-protocol): "| `ttl_seconds` | integer | No | Session time-to-live in seconds. Minimum: 60. Default: `1800`. |"

    Deliberate difference (docs/api.md: "Session TTL"): the review-repo branch's default is
    3600 s; the profile follows seeds 000 and 002 (1800 s).
    """
    assert agents_json(site)["session"]["ttl_seconds"] == 1800
    set_ttl(60)
    assert agents_json(site)["session"]["ttl_seconds"] == 60


def test_rate_limit_declares_requests_per_minute_and_max_sessions(site):
    """agents.json's rate_limit names both numbers the API enforces.

    agents-json.md (agents-protocol): "| `requests_per_minute` | integer | No | Maximum requests per minute. | | `max_sessions` | integer | No | Maximum concurrent sessions per agent. |"
    """
    set_limits(requests_per_minute=30, max_sessions=3)
    assert agents_json(site)["rate_limit"] == {"requests_per_minute": 30, "max_sessions": 3}


def test_audit_public_key_is_a_base64_ed25519_key(site):
    """audit.public_key decodes (base64) to an Ed25519 public key.

    agents-json.md (agents-protocol): "| `public_key` | string | No | Base64-encoded Ed25519 public key for offline artifact verification. |"

    The bytes are a DER SubjectPublicKeyInfo, as the branch's own example (`MCowBQYDK2VwAyEA…`).
    """
    key = agents_json(site)["audit"]["public_key"]
    assert key.startswith("MCowBQYDK2VwAyEA")
    assert isinstance(load_der_public_key(base64.b64decode(key)), Ed25519PublicKey)


def test_audit_endpoint_has_the_session_id_placeholder(site):
    """audit.endpoint is origin-relative with `:session_id`.

    agents-json.md (review-repo): "| `endpoint` | string | No | URL to retrieve audit artifacts. Includes `:session_id` placeholder. Default: `/.well-known/agents/api/audit/:session_id`. |"

    Deliberate difference (docs/api.md: "Audit URL"): the agents-protocol branch's default is
    `/.well-known/agents/api/audit`, without the placeholder.
    """
    assert agents_json(site)["audit"]["endpoint"] == f"{API}/audit/:session_id"


def test_flow_steps_are_capability_names(site):
    """Each flow's steps are names of declared capabilities.

    agents-json.md (review-repo): "| `steps` | array of strings | Yes | Ordered list of capability names to call. |"
    """
    document = agents_json(site)
    names = {c["name"] for c in document["capabilities"]}
    assert document["flows"] and all(set(flow["steps"]) <= names for flow in document["flows"])


# --------------------------------------------------------------------------- interaction API: requests

def test_capability_endpoints_live_under_the_common_base_path(site):
    """Every declared endpoint, and the session endpoints, start with /.well-known/agents/api/.

    interaction-api.md (both branches): "All capability endpoints live under: ``` /.well-known/agents/api ```"
    """
    document = agents_json(site)
    paths = [c["endpoint"] for c in document["capabilities"]] + [document["session"]["create"],
                                                                 document["session"]["delete"]]
    assert all(path.startswith(API + "/") for path in paths), paths


def test_cart_endpoints_are_split_and_detail_takes_a_path_parameter(site):
    """The default layout: /cart/add POST, /cart/view GET, /cart/update PUT, /cart/remove DELETE, /detail/:id.

    interaction-api.md (review-repo): "4. **Cart endpoints** are split: `/cart/add` (POST), `/cart/view` (GET), `/cart/update` (PUT), `/cart/remove` (DELETE). 5. **Detail endpoint** uses a path parameter: `/detail/:id`."

    Deliberate difference (docs/api.md: "Endpoint layout"): the agents-protocol branch serves the
    cart on one `/cart` path by method (PATCH to update) and detail as `/detail?id=`.
    """
    declared = {c["name"]: (c["endpoint"].removeprefix(API), c["method"]) for c in agents_json(site)["capabilities"]}
    assert [declared[name] for name in ("cart.add", "cart.view", "cart.update", "cart.remove", "detail")] == [
        ("/cart/add", "POST"), ("/cart/view", "GET"), ("/cart/update", "PUT"), ("/cart/remove", "DELETE"),
        ("/detail/:id", "GET")]


def test_get_parameters_travel_in_the_query_string(site):
    """search?q=…&limit=… is read from the query string.

    interaction-api.md (both branches): "Parameters are sent as URL query string values."
    """
    data = ok_data(send(site, "GET", f"{API}/search", params={"q": "Conformance Mug", "limit": 1}))
    assert [r["id"] for r in data["results"]] == [MUG] and data["limit"] == 1


def test_post_put_and_delete_parameters_travel_as_a_json_body(site):
    """cart.add (POST), cart.update (PUT) and cart.remove (DELETE) read a JSON body.

    interaction-api.md (both branches): "Parameters are sent as a JSON body."

    interaction-api.md (both branches): "For `DELETE` requests that need parameters, the body is also JSON."
    """
    token = new_session(site)["session_token"]
    assert ok_data(send(site, "POST", f"{API}/cart/add", token, {"item_id": MUG, "quantity": 2}))["quantity"] == 2
    assert ok_data(send(site, "PUT", f"{API}/cart/update", token, {"item_id": MUG, "quantity": 3}))["quantity"] == 3
    assert ok_data(send(site, "DELETE", f"{API}/cart/remove", token, {"item_id": MUG}))["removed"] is True


def test_a_body_that_is_not_json_is_refused(site):
    """A form-encoded body is refused (415 unsupported_media_type), not read.

    interaction-api.md (both branches): "Must be `application/json`."
    """
    response = send(site, "POST", f"{API}/contact", data="name=Ada&email=ada%40example.com&message=hi",
                    headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert_error(response, 415, "unsupported_media_type")


def test_the_recommended_request_headers_are_welcome(site):
    """Accept: application/json and an agent User-Agent are answered as usual, in JSON.

    interaction-api.md (both branches): "| `Accept` | Recommended | Should be `application/json`. | | `User-Agent` | Recommended | Identifies the agent (e.g., `MyShoppingAgent/1.0`). |"
    """
    response = send(site, "GET", f"{API}/search", params={"q": "mug"},
                    headers={"Accept": "application/json", "User-Agent": "MyShoppingAgent/1.0"})
    assert ok_data(response)["total"] >= 1


def test_authorization_bearer_carries_the_session_token(site):
    """`Authorization: Bearer <token>` opens the session on a session-required capability.

    interaction-api.md (review-repo): "| `Authorization` | Conditional | `Bearer <session_token>`. Required for capabilities where `requires_session` is `true`. |"

    session.md (review-repo): "After creating a session, the agent includes the token in the `Authorization` header on every request to a session-required capability:"
    """
    token = new_session(site)["session_token"]
    assert ok_data(send(site, "GET", f"{API}/cart/view", headers=bearer(token)))["items"] == []


def test_x_session_token_is_accepted_instead(site):
    """`X-Session-Token: <token>` (the bare token) opens the session too.

    interaction-api.md (review-repo): "| `X-Session-Token` | Conditional | Alternative to `Authorization: Bearer`. The session token value directly. |"

    session.md (review-repo): "The server also accepts `X-Session-Token: <token>` as an alternative header."
    """
    token = new_session(site)["session_token"]
    assert ok_data(send(site, "GET", f"{API}/cart/view", headers={"X-Session-Token": token}))["items"] == []


def test_x_agent_session_is_accepted_too(site):
    """The agents-protocol branch's `X-Agent-Session: <token>` opens the session too.

    interaction-api.md (agents-protocol): "| `X-Agent-Session` | Conditional | Required for capabilities where `requires_session` is `true`. Value is the `session_token` from session creation. |"
    """
    token = new_session(site)["session_token"]
    assert ok_data(send(site, "GET", f"{API}/cart/view", headers={"X-Agent-Session": token}))["items"] == []


# --------------------------------------------------------------------------- interaction API: answers

def answers_of_every_kind(site):
    """[(what, response)]: successes, a creation and each refusal the API answers over plain HTTP."""
    token = new_session(site)["session_token"]
    ended = new_session(site)["session_token"]
    end_session(site, ended)
    live_session = new_session(site)
    answers = [
        ("200 search", send(site, "GET", f"{API}/search", params={"q": "mug"})),
        ("201 session", site.http.post(site + SESSION_PATH, timeout=TIMEOUT)),
        ("200 cart.add", send(site, "POST", f"{API}/cart/add", token, {"item_id": MUG, "quantity": 1})),
        ("400 invalid_params", send(site, "GET", f"{API}/search")),
        ("400 invalid_json", send(site, "POST", f"{API}/contact", data="{not json",
                                  headers={"Content-Type": "application/json"})),
        ("401 session_required", send(site, "GET", f"{API}/cart/view")),
        ("401 session_ended", send(site, "GET", f"{API}/cart/view", ended)),
        ("404 not_found", send(site, "GET", f"{API}/teleport")),
        ("404 unknown_item", send(site, "GET", f"{API}/detail/no-such-item")),
        ("405 method_not_allowed", send(site, "DELETE", f"{API}/search")),
        ("413 payload_too_large", send(site, "POST", f"{API}/contact", params={"message": "x" * 70_000})),
        ("415 unsupported_media_type", send(site, "POST", f"{API}/contact", data="a=b",
                                            headers={"Content-Type": "application/x-www-form-urlencoded"})),
        ("425 session_live", send(site, "GET", f"{API}/audit/{live_session['session_id']}",
                                  live_session["session_token"])),
    ]
    set_limits(requests_per_minute=1)  # spent within a call or two (the caller froze the window's clock)
    over = [send(site, "GET", f"{API}/search", params={"q": "mug"}) for _ in range(2)]
    answers.append(("429 rate_limited", over[-1]))
    for what, response in answers:
        assert str(response.status_code) == what.split()[0], (what, response.status_code, response.text[:200])
    return answers


def test_every_answer_uses_the_envelope(site, clock):
    """Success: {"ok": true, "data"}; refusal: {"ok": false, "error": <sentence>} (+ our "code", "fields").

    interaction-api.md (both branches): "All responses use a consistent envelope:"

    interaction-api.md (both branches): "| `ok` | boolean | `true` if the request succeeded, `false` otherwise. | | `data` | any | The response payload. Structure depends on the capability. Present when `ok` is `true`. | | `error` | string | Error message. Present when `ok` is `false`. |"

    Deliberate difference (docs/api.md: "Additions"): a refusal also names a machine-readable
    `code` (and `fields` for per-parameter errors).
    """
    for what, response in answers_of_every_kind(site):
        body = response.json()
        if response.status_code < 400:
            assert body["ok"] is True and "data" in body and "error" not in body, what
        else:
            assert body["ok"] is False and "data" not in body, what
            assert isinstance(body["error"], str) and body["error"], what
            assert body["code"] == what.split()[1], what
            assert set(body) <= {"ok", "error", "code", "fields"}, what


def test_every_api_answer_is_json_in_utf8(site, clock):
    """Every answer of the API, success or refusal, is `application/json; charset=utf-8`.

    interaction-api.md (both branches): "| `Content-Type` | Always `application/json; charset=utf-8`. |"
    """
    for what, response in answers_of_every_kind(site):
        assert response.headers["Content-Type"] == JSON_UTF8, what


def test_a_preflight_answer_claims_no_other_content_type(site):
    """The 204 preflight, bodiless, carries no Content-Type, or the API's.

    interaction-api.md (both branches): "| `Content-Type` | Always `application/json; charset=utf-8`. |"
    """
    response = site.http.options(site + f"{API}/cart/add", headers={
        "Origin": "https://agent.example", "Access-Control-Request-Method": "POST"}, timeout=TIMEOUT)
    assert response.status_code == 204
    assert response.headers.get("Content-Type", JSON_UTF8) == JSON_UTF8


def agents_links(response):
    fields = response.raw.headers.getlist("Link")
    return [link for field in fields for link in parse_header_links(field) if link.get("rel") == "agents"]


@pytest.mark.parametrize("method, path, status", [
    ("GET", f"{API}/search?q=mug", 200),
    ("POST", SESSION_PATH, 201),
    ("OPTIONS", f"{API}/cart/add", 204),
    ("GET", f"{API}/cart/view", 401),
    ("GET", f"{API}/teleport", 404),
    ("DELETE", f"{API}/search", 405),
    ("GET", AGENTS_TXT, 200),
    ("GET", AGENTS_JSON, 200),
    ("GET", "/", 200),
    ("GET", "/no-such-page/", 404),
])
def test_every_response_links_agents_json(site, method, path, status):
    """`Link: </.well-known/agents.json>; rel="agents"` on API answers, documents, pages and errors, once.

    interaction-api.md (review-repo): "| `Link` | `</.well-known/agents.json>; rel="agents"` — present on every response for discovery. |"

    Deliberate difference (docs/api.md: "Additions"): the link also says `type="application/json"`.
    """
    response = send(site, method, path, headers={"Origin": "https://agent.example",
                                                 "Access-Control-Request-Method": "POST"})
    assert response.status_code == status
    assert [link["url"] for link in agents_links(response)] == [AGENTS_JSON]


def test_api_answers_allow_any_origin(site):
    """`Access-Control-Allow-Origin: *` on API answers, refusals included, and on the documents.

    interaction-api.md (review-repo): "| `Access-Control-Allow-Origin` | `*` — CORS support for browser-based agents. |"

    interaction-api.md (agents-protocol): "Sites that want to support browser-based agents SHOULD set appropriate CORS headers: ``` Access-Control-Allow-Origin: *"
    """
    for path in (f"{API}/search?q=mug", f"{API}/cart/view", AGENTS_JSON, AGENTS_TXT):
        response = send(site, "GET", path, headers={"Origin": "https://agent.example"})
        assert response.headers["Access-Control-Allow-Origin"] == "*", path


def test_a_preflight_is_204_with_the_cors_headers(site):
    """OPTIONS answers 204 with Allow-Origin *, the token headers and Content-Type allowed, and the path's methods.

    interaction-api.md (review-repo): "OPTIONS preflight requests receive a `204 No Content` response with the same headers."

    interaction-api.md (review-repo): "| `204` | No Content | OPTIONS preflight response. |"

    interaction-api.md (review-repo): "Access-Control-Allow-Headers: Content-Type, Authorization, X-Session-Token"

    interaction-api.md (agents-protocol): "Access-Control-Allow-Headers: Content-Type, X-Agent-Session"

    Deliberate difference (docs/api.md: "CORS"): Access-Control-Allow-Methods names the methods of
    the path asked about (and OPTIONS), not always `GET, POST, PUT, PATCH, DELETE, OPTIONS`; the
    Allow-Methods and Allow-Headers fields come on the preflight, where browsers read them.
    """
    response = site.http.options(site + f"{API}/cart/add", headers={
        "Origin": "https://agent.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type"}, timeout=TIMEOUT)
    assert response.status_code == 204 and response.content == b""
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    allowed = {h.strip().lower() for h in response.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "authorization", "x-session-token", "x-agent-session"} <= allowed
    assert response.headers["Access-Control-Allow-Methods"] == "POST, OPTIONS"


def test_200_when_the_request_succeeded(site):
    """Every capability the documents list answers 200 on success, and so does ending a session.

    interaction-api.md (both branches): "| `200` | OK | Request succeeded. |"
    """
    token = new_session(site)["session_token"]
    calls = [
        ("GET", f"{API}/search", {"q": "mug"}), ("GET", f"{API}/browse", {"limit": 1}),
        ("GET", f"{API}/detail/{MUG}", None), ("POST", f"{API}/cart/add", {"item_id": MUG, "quantity": 1}),
        ("GET", f"{API}/cart/view", None), ("PUT", f"{API}/cart/update", {"item_id": MUG, "quantity": 2}),
        ("POST", f"{API}/cart/add", {"item_id": BOWL, "quantity": 1}),
        ("DELETE", f"{API}/cart/remove", {"item_id": BOWL}), ("POST", f"{API}/checkout", None),
        ("POST", f"{API}/contact", {"name": "Ada", "email": "ada@example.com", "message": "Hello"}),
        ("DELETE", SESSION_PATH, None),
    ]
    for method, path, params in calls:
        ok_data(send(site, method, path, token, params))


def test_session_create_answers_201_created(site):
    """POST /session answers 201 Created.

    session.md (agents-protocol): "HTTP/1.1 201 Created"

    interaction-api.md (agents-protocol): "| `201` | Created | Resource created (e.g., session, cart item). |"

    session.md (review-repo): "HTTP/1.1 200 OK"

    Deliberate difference (docs/api.md: "Session create status"): the review-repo branch answers
    200; the profile answers 201, as the agents-protocol branch does.
    """
    assert site.http.post(site + SESSION_PATH, timeout=TIMEOUT).status_code == 201


def test_cart_add_answers_200(site):
    """cart.add answers 200, for a new line and for an item already in the cart alike.

    interaction-api.md (review-repo): "-> 200: { ok: true, data: { item_id: "prod_9f8e7d", quantity: 2, cart_size: 1 } }"

    interaction-api.md (review-repo): "| `201` | Created | Resource created (e.g., cart item added). |"

    interaction-api.md (agents-protocol): "| `201` | Created | Resource created (e.g., session, cart item). |"

    Deliberate difference (docs/api.md: "cart.add status"): both status tables give 201 for a cart
    item; the review-repo branch's own flow and session diagram answer 200, and so does this site.
    """
    token = new_session(site)["session_token"]
    first = send(site, "POST", f"{API}/cart/add", token, {"item_id": MUG, "quantity": 1})
    again = send(site, "POST", f"{API}/cart/add", token, {"item_id": MUG, "quantity": 1})
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json()["data"]["quantity"] == 2


def test_400_for_missing_or_invalid_parameters_with_an_error_that_says_what(site):
    """A missing or ill-typed parameter is 400, and `error` names it.

    interaction-api.md (both branches): "| `400` | Bad Request | Missing or invalid parameters. The `error` field describes what is wrong. |"
    """
    missing = assert_error(send(site, "GET", f"{API}/search"), 400, "invalid_params")
    assert "q" in missing["fields"] and "q:" in missing["error"]
    wrong = assert_error(send(site, "GET", f"{API}/browse", params={"limit": "many"}), 400, "invalid_params")
    assert "limit" in wrong["fields"] and "limit:" in wrong["error"]


def test_401_for_a_missing_or_invalid_token_on_every_session_required_capability(site):
    """No token, or one that is no session's: 401 on each capability declaring requires_session.

    interaction-api.md (review-repo): "| `401` | Unauthorized | Missing or invalid session token on a session-required endpoint. |"

    session.md (both branches): "If the header is missing or the token is invalid/expired, the site responds with `401 Unauthorized`:"
    """
    required = [c for c in agents_json(site)["capabilities"] if c.get("requires_session")]
    assert len(required) >= 5
    for capability in required:
        method, path, params = capability_call(capability)
        assert_error(send(site, method, path, None, params), 401, "session_required")
        assert_error(send(site, method, path, "not-a-session-token", params), 401, "session_invalid")


def test_404_for_an_unknown_endpoint_or_resource(site):
    """An endpoint nobody serves, an unknown item, an item not in the cart, an unknown session: 404.

    interaction-api.md (agents-protocol): "| `404` | Not Found | The capability endpoint does not exist, or the referenced resource (item, session) was not found. |"
    """
    token = new_session(site)["session_token"]
    assert_error(send(site, "GET", f"{API}/teleport"), 404, "not_found")
    assert_error(send(site, "GET", f"{API}/detail/no-such-item"), 404, "unknown_item")
    assert_error(send(site, "DELETE", f"{API}/cart/remove", token, {"item_id": MUG}), 404, "item_not_in_cart")
    assert_error(send(site, "GET", f"{API}/audit/ses_nosuchsession", token), 404, "unknown_session")


@pytest.fixture
def broken_capability(site):
    """A capability whose handler fails unexpectedly, routed at {API}/broken."""
    def explode(call):
        raise RuntimeError("something went wrong on the server")

    register("broken", explode)
    Capability.objects.create(name="broken", endpoint=f"{API}/broken", method="POST", position=40)
    yield f"{API}/broken"
    unregister("broken")


def test_500_when_something_goes_wrong_on_the_server(site, broken_capability):
    """An unexpected failure is 500, in the envelope, without a traceback.

    interaction-api.md (both branches): "| `500` | Internal Server Error | Something went wrong on the server. |"
    """
    response = send(site, "POST", broken_capability)
    body = assert_error(response, 500, "internal_error")
    assert "Traceback" not in response.text and "RuntimeError" not in body["error"]


# --------------------------------------------------------------------------- rate limiting

def test_the_rate_limit_agents_json_declares_is_the_one_enforced(site, clock):
    """requests_per_minute = 3: agents.json says 3, and the fourth call of the minute is 429.

    interaction-api.md (review-repo): "Sites declare their rate limit in `agents.json` under `rate_limit.requests_per_minute`."

    interaction-api.md (both branches): "| `429` | Too Many Requests | Rate limit exceeded. Check `Retry-After` header. |"

    Deliberate difference (docs/api.md: "agents.json keys"): the agents-protocol branch's
    interaction API names the key `rate_limit.max_requests_per_minute`; the canonical schema and
    both agents-json.md texts name it `requests_per_minute`. X-RateLimit-Limit (our addition,
    docs/api.md: "Additions") states the same number on every counted answer.
    """
    set_limits(requests_per_minute=3)
    assert agents_json(site)["rate_limit"]["requests_per_minute"] == 3
    answers = [send(site, "GET", f"{API}/search", params={"q": "mug"}) for _ in range(4)]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]
    assert_error(answers[-1], 429, "rate_limited")
    assert {r.headers["X-RateLimit-Limit"] for r in answers} == {"3"}


def test_retry_after_is_the_seconds_to_wait_before_retrying(site, clock):
    """A 429 carries Retry-After, whole seconds ≥ 1; one second short of it the call is still
    refused, after it the call is answered.

    interaction-api.md (both branches): "| `Retry-After` | Seconds to wait before retrying. Present on `429` responses. |"

    interaction-api.md (both branches): "Agents MUST wait at least `Retry-After` seconds before sending another request."
    """
    set_limits(requests_per_minute=1)
    assert send(site, "GET", f"{API}/search", params={"q": "mug"}).status_code == 200
    refused = send(site, "GET", f"{API}/search", params={"q": "mug"})
    assert refused.status_code == 429
    retry_after = refused.headers["Retry-After"]
    assert retry_after.isdigit() and 1 <= int(retry_after) <= 60
    start = clock.now
    clock.now = start + int(retry_after) - 1
    assert send(site, "GET", f"{API}/search", params={"q": "mug"}).status_code == 429
    clock.now = start + int(retry_after)
    assert send(site, "GET", f"{API}/search", params={"q": "mug"}).status_code == 200


def test_x_ratelimit_remaining_counts_the_calls_left_in_the_window(site, clock):
    """Remaining counts down to 0, and a 429 says 0.

    interaction-api.md (review-repo): "| `X-RateLimit-Remaining` | Number of requests remaining in the current window. Present on `429` responses. |"

    interaction-api.md (agents-protocol): "| `X-RateLimit-Remaining` | Optional. Number of requests remaining in the current window. |"
    """
    set_limits(requests_per_minute=3)
    answers = [send(site, "GET", f"{API}/search", params={"q": "mug"}) for _ in range(4)]
    assert [r.headers["X-RateLimit-Remaining"] for r in answers] == ["2", "1", "0", "0"]
    assert answers[-1].status_code == 429


def test_x_ratelimit_reset_is_the_unix_time_the_window_resets(site, clock):
    """Reset is a Unix time in whole seconds, within the coming minute; at Reset - 1 calls are still
    refused, at Reset the window has reset (a full budget again).

    interaction-api.md (both branches): "Unix timestamp when the rate limit window resets."
    """
    set_limits(requests_per_minute=2)
    answers = [send(site, "GET", f"{API}/search", params={"q": "mug"}) for _ in range(3)]
    assert [r.status_code for r in answers] == [200, 200, 429]
    reset = int(answers[-1].headers["X-RateLimit-Reset"])
    assert {r.headers["X-RateLimit-Reset"] for r in answers} == {str(reset)}
    assert clock.now < reset <= clock.now + 60
    assert reset == int(clock.now) + int(answers[-1].headers["Retry-After"])
    clock.now = reset - 1
    assert send(site, "GET", f"{API}/search", params={"q": "mug"}).status_code == 429
    clock.now = reset
    again = send(site, "GET", f"{API}/search", params={"q": "mug"})
    assert again.status_code == 200 and again.headers["X-RateLimit-Remaining"] == "1"
    assert int(again.headers["X-RateLimit-Reset"]) == reset + 60


def test_the_reset_time_is_on_the_real_clock(site):
    """Unfrozen: X-RateLimit-Reset is ahead of the wall clock by at most a minute (a time, not a delay).

    interaction-api.md (both branches): "Unix timestamp when the rate limit window resets."
    """
    sent_at = time.time()
    response = send(site, "GET", f"{API}/search", params={"q": "mug"})
    received_at = time.time()
    assert sent_at < int(response.headers["X-RateLimit-Reset"]) <= received_at + 60


# --------------------------------------------------------------------------- capability answers

def test_search_answers_results_with_total_page_and_limit(site):
    """search's data is {results, total, page, limit}.

    interaction-api.md (agents-protocol): "-> 200: { ok: true, data: { results: [...], total: 42, page: 1 } }"

    interaction-api.md (review-repo): "Response `data`: an array of results (shape defined by the site's handler)."

    Deliberate difference (docs/api.md: "search answer"): the review-repo branch answers a bare
    array; the profile answers the agents-protocol branch's object (plus `limit`).
    """
    data = ok_data(send(site, "GET", f"{API}/search", params={"q": "Conformance", "limit": 1}))
    assert set(data) == {"results", "total", "page", "limit"}
    assert (data["total"], data["page"], data["limit"], len(data["results"])) == (2, 1, 1, 1)


def test_browse_answers_items_and_total(site):
    """browse's data has items and total.

    interaction-api.md (review-repo): "Response `data`: `{ "items": [...], "total": 42 }`"
    """
    data = ok_data(send(site, "GET", f"{API}/browse", params={"page": 1, "limit": 20}))
    assert {item["id"] for item in data["items"]} == {MUG, BOWL} and data["total"] == 2


def test_detail_answers_one_item_by_path_or_query(site):
    """detail/:id and detail?id= both answer the item object.

    interaction-api.md (review-repo): "Response `data`: a single item object (shape defined by the site's handler)."

    interaction-api.md (review-repo): "GET /.well-known/agents/api/detail/prod_9f8e7d"

    interaction-api.md (agents-protocol): "GET /.well-known/agents/api/detail?id=prod_9f8e7d"
    """
    by_path = ok_data(send(site, "GET", f"{API}/detail/{MUG}"))
    by_query = ok_data(send(site, "GET", f"{API}/detail", params={"id": MUG}))
    assert by_path == by_query and by_path["id"] == MUG and by_path["name"] == "Conformance Mug"


def test_cart_add_answers_item_id_quantity_and_cart_size(site):
    """cart.add's data has item_id, quantity (of the line) and cart_size.

    interaction-api.md (review-repo): "Response `data`: `{ "item_id": "prod_9f8e7d", "quantity": 2, "cart_size": 1 }`"
    """
    token = new_session(site)["session_token"]
    data = ok_data(send(site, "POST", f"{API}/cart/add", token, {"item_id": MUG, "quantity": 2}))
    assert (data["item_id"], data["quantity"], data["cart_size"]) == (MUG, 2, 1)


def test_cart_add_takes_name_and_price_but_prices_come_from_the_shop(site):
    """cart.add accepts `name` and `price` and ignores them: the line costs the shop's price.

    interaction-api.md (review-repo): "{ "item_id": "prod_9f8e7d", "quantity": 2, "name": "Ocean Blue Mug", "price": 28.00 }"

    Deliberate difference (docs/api.md: "cart.add name and price"): the documents (and seed 001)
    list `name?` and `price?` as cart.add inputs; this site never takes a price from the agent.
    """
    token = new_session(site)["session_token"]
    data = ok_data(send(site, "POST", f"{API}/cart/add", token,
                        {"item_id": MUG, "quantity": 2, "name": "Ocean Blue Mug", "price": 0.01}))
    (line,) = data["cart"]["items"]
    assert (line["name"], line["unit_price"], line["line_total"]) == ("Conformance Mug", 10.0, 20.0)


def test_cart_view_answers_items_and_subtotal(site):
    """cart.view's data has items and subtotal.

    interaction-api.md (review-repo): "Response `data`: `{ "items": [...], "subtotal": 56.00 }`"
    """
    token = new_session(site)["session_token"]
    ok_data(send(site, "POST", f"{API}/cart/add", token, {"item_id": MUG, "quantity": 2}))
    data = ok_data(send(site, "GET", f"{API}/cart/view", token))
    assert [item["item_id"] for item in data["items"]] == [MUG] and data["subtotal"] == 20.0


def test_cart_update_answers_item_id_and_quantity(site):
    """cart.update's data has item_id and the new quantity.

    interaction-api.md (review-repo): "Response `data`: `{ "item_id": "prod_9f8e7d", "quantity": 3 }`"
    """
    token = new_session(site)["session_token"]
    ok_data(send(site, "POST", f"{API}/cart/add", token, {"item_id": MUG, "quantity": 1}))
    data = ok_data(send(site, "PUT", f"{API}/cart/update", token, {"item_id": MUG, "quantity": 3}))
    assert (data["item_id"], data["quantity"]) == (MUG, 3)


def test_cart_remove_answers_removed_true(site):
    """cart.remove's data has item_id and removed: true.

    interaction-api.md (review-repo): "Response `data`: `{ "item_id": "prod_9f8e7d", "removed": true }`"
    """
    token = new_session(site)["session_token"]
    ok_data(send(site, "POST", f"{API}/cart/add", token, {"item_id": MUG, "quantity": 1}))
    data = ok_data(send(site, "DELETE", f"{API}/cart/remove", token, {"item_id": MUG}))
    assert (data["item_id"], data["removed"]) == (MUG, True)


def test_a_human_handoff_capability_answers_a_url_for_the_human(site):
    """Each capability declaring human_handoff answers an absolute URL in `data`.

    agents-json.md (both branches): "| `human_handoff` | boolean | No | Whether this returns a URL for a human to complete. Default: `false`. |"

    interaction-api.md (agents-protocol): "Capabilities with `human_handoff: true` return a URL in `data` that the agent should present to the human:"
    """
    token = new_session(site)["session_token"]
    handoffs = [c for c in agents_json(site)["capabilities"] if c.get("human_handoff")]
    assert [c["name"] for c in handoffs] == ["checkout"]
    for capability in handoffs:
        ok_data(send(site, "POST", f"{API}/cart/add", token, {"item_id": MUG, "quantity": 1}))
        data = ok_data(send(site, capability["method"], capability["endpoint"], token))
        urls = [v for v in data.values() if isinstance(v, str) and urlsplit(v).scheme in {"http", "https"}]
        assert urls and all(urlsplit(url).netloc == urlsplit(site).netloc for url in urls), data


def test_checkout_answers_checkout_url_human_handoff_expiry_and_message(site):
    """checkout's data: checkout_url, human_handoff: true, expires_at, message.

    interaction-api.md (review-repo): "Response `data`: `{ "checkout_url": "https://...", "human_handoff": true }`"

    interaction-api.md (agents-protocol): ""handoff_url": "https://acmeceramics.example.com/checkout/sess_abc123", "expires_at": "2026-02-19T13:30:00Z", "message": "Please complete your purchase at the link above.""

    Deliberate difference (docs/api.md: "checkout answer"): the URL is `checkout_url` (the
    review-repo branch, seed 001), not the agents-protocol branch's `handoff_url`; that branch's
    `expires_at` and `message` come too.
    """
    token = new_session(site)["session_token"]
    ok_data(send(site, "POST", f"{API}/cart/add", token, {"item_id": MUG, "quantity": 1}))
    data = ok_data(send(site, "POST", f"{API}/checkout", token))
    assert {"checkout_url", "human_handoff", "expires_at", "message"} <= set(data) and "handoff_url" not in data
    assert data["human_handoff"] is True and data["checkout_url"].startswith(site + "/checkout/")
    assert parse_time(data["expires_at"]) > timezone.now() and data["message"]


def test_contact_answers_sent_true(site):
    """contact's data has sent: true.

    interaction-api.md (review-repo): "Response `data`: `{ "sent": true }`"
    """
    data = ok_data(send(site, "POST", f"{API}/contact",
                        params={"name": "Jane", "email": "jane@example.com", "message": "Hello"}))
    assert data["sent"] is True


# --------------------------------------------------------------------------- sessions

def test_a_bare_post_creates_a_session(site):
    """POST /session with no body and no Content-Type creates a session.

    session.md (both branches): "All fields are optional. A bare `POST` with an empty body is valid."
    """
    response = site.http.post(site + SESSION_PATH, timeout=TIMEOUT)
    assert ok_data(response, 201)["session_token"]


def test_session_create_answers_token_expiry_and_capabilities(site):
    """The answer's data has session_token (a string), expires_at (ISO 8601, in the future) and
    capabilities (strings).

    session.md (both branches): "| `session_token` | string | Opaque token the agent must include in subsequent requests."

    session.md (both branches): "| `expires_at` | string (ISO 8601) | When the session expires. |"

    Deliberate difference (docs/api.md: "Additions"): the answer also carries `session_id`,
    `ttl_seconds`, `audit` and `inspect_url`.
    """
    data = new_session(site)
    assert isinstance(data["session_token"], str)
    assert parse_time(data["expires_at"]) > timezone.now()
    assert data["capabilities"] and all(isinstance(name, str) for name in data["capabilities"])
    assert set(data) == {"session_token", "expires_at", "capabilities", "session_id", "ttl_seconds", "audit",
                         "inspect_url"}


def test_session_create_lists_the_session_required_capabilities(site):
    """The create answer's capabilities are the session-required capabilities agents.json declares.

    session.md (both branches): "| `capabilities` | array of strings | The session-required capabilities available in this session. |"
    """
    required = [c["name"] for c in agents_json(site)["capabilities"] if c.get("requires_session")]
    assert new_session(site)["capabilities"] == required


def test_the_session_token_is_at_least_32_random_characters(site):
    """Tokens are ≥ 32 characters (43: 32 random bytes, base64url), all different.

    session.md (agents-protocol): "The `session_token` format is implementation-defined. It MUST be at least 32 characters and cryptographically random."

    session.md (review-repo): "| `session_token` | string | Opaque token the agent must include in subsequent requests. UUID format. |"

    Deliberate difference (docs/api.md: "Session token format"): not a UUID (the review-repo
    branch), 32 bytes from `secrets` instead.
    """
    tokens = [new_session(site)["session_token"] for _ in range(3)]
    assert len(set(tokens)) == 3
    for token in tokens:
        assert len(token) >= 32 and re.fullmatch(r"[A-Za-z0-9_-]+", token)
        assert len(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))) >= 32


def test_session_create_says_audit_true_when_audit_is_on(site):
    """`"audit": true` with audit on (and `false` with it off).

    session.md (review-repo): "When audit is enabled, the response also includes `"audit": true`."
    """
    assert new_session(site)["audit"] is True
    turn_audit_off()
    assert new_session(site)["audit"] is False


def test_the_agent_its_version_and_purpose_are_recorded_in_the_audit_trail(trail):
    """agent_name, agent_version and purpose, sent at creation, are the first event's params.

    session.md (both branches): "| `purpose` | string | No | Human-readable description of what the agent intends to do. Recorded in the audit trail. |"

    audit.md (agents-protocol): "- Agent identity (if provided) - Declared purpose (if provided)"

    Deliberate difference (docs/api.md: "Audit artifact format"): they are in the signed chain's
    first event (`session.create`), not in a top-level `agent` object, with the session's public
    id and the site's URL, which bind the chain to the session and site the artifact names.
    """
    first = trail.artifact["events"][0]
    assert first["capability"] == "session.create" and "agent" not in trail.artifact
    assert first["params"] == {"agent_name": "conformance-agent", "agent_version": "1.0",
                               "purpose": "replay the documents", "session_id": trail.artifact["session_id"],
                               "site": trail.artifact["site"]}


def test_a_token_on_a_capability_without_session_joins_the_call_to_the_session(trail):
    """search sent with the token answers as usual and is an event of the session's trail.

    session.md (both branches): "Non-session capabilities (like `search` or `browse`) do not require the header. However, an agent MAY include it to associate those calls with a session for audit purposes."
    """
    assert trail.answers[0].status_code == 200
    assert trail.artifact["events"][1]["capability"] == "search"
    assert trail.artifact["events"][1]["params"]["q"] == "Conformance"


def test_the_ttl_starts_when_the_session_is_created(site):
    """expires_at is creation time + ttl_seconds.

    session.md (both branches): "- The TTL starts when the session is created."
    """
    set_ttl(120)
    before = time.time()
    data = new_session(site)
    after = time.time()
    assert before + 120 - 1 <= parse_time(data["expires_at"]).timestamp() <= after + 120


def test_activity_does_not_extend_the_ttl(site):
    """TTL 60 s: calls made in second 59 do not move the deadline; at second 61 the token is refused.

    session.md (both branches): "- The TTL is **not** extended by activity. It is a hard deadline."
    """
    set_ttl(60)
    data = new_session(site)
    token = data["session_token"]
    move_deadline(data["session_id"], 59)
    stored = AgentSession.objects.get(public_id=data["session_id"])
    for _ in range(3):
        ok_data(send(site, "GET", f"{API}/cart/view", token))
    assert AgentSession.objects.get(pk=stored.pk).expires_at == stored.expires_at
    assert stored.expires_at - stored.created_at == timedelta(seconds=60)
    move_deadline(data["session_id"], 2)
    assert_error(send(site, "GET", f"{API}/cart/view", token), 401, "session_expired")


def test_once_expired_the_token_is_401_on_every_session_capability(site):
    """After the deadline: 401 session_expired on each session-required capability and on session DELETE.

    session.md (both branches): "- Once expired, all requests with that session token return `401`."
    """
    data = new_session(site)
    move_deadline(data["session_id"], 1801)
    for capability in (c for c in agents_json(site)["capabilities"] if c.get("requires_session")):
        method, path, params = capability_call(capability)
        assert_error(send(site, method, path, data["session_token"], params), 401, "session_expired")
    assert_error(send(site, "DELETE", SESSION_PATH, data["session_token"]), 401, "session_expired")


def test_a_stale_token_on_a_capability_without_session_is_answered_without_the_session(site):
    """An expired (or unknown) token sent to search is answered as a call without a session.

    session.md (both branches): "- Once expired, all requests with that session token return `401`."

    Deliberate difference (docs/api.md: "Stale token without a session"): capabilities that need no
    session answer as if no token had been sent; only session-required ones (and `DELETE
    /session`) refuse it.
    """
    data = new_session(site)
    move_deadline(data["session_id"], 1801)
    assert ok_data(send(site, "GET", f"{API}/search", data["session_token"], {"q": "mug"}))["total"] >= 1
    assert ok_data(send(site, "GET", f"{API}/search", "not-a-session-token", {"q": "mug"}))["total"] >= 1


def test_after_a_401_a_new_session_and_a_retry_succeed(site):
    """An expired session's call is 401; a new session's token makes the same call succeed.

    interaction-api.md (both branches): "The session may have expired. Create a new session and retry."

    session.md (both branches): "If an agent needs more time, it should create a new session."
    """
    old = new_session(site)
    move_deadline(old["session_id"], 1801)
    assert_error(send(site, "POST", f"{API}/cart/add", old["session_token"], {"item_id": MUG}), 401,
                 "session_expired")
    token = new_session(site)["session_token"]
    assert ok_data(send(site, "POST", f"{API}/cart/add", token, {"item_id": MUG}))["cart_size"] == 1


def test_delete_ends_the_session_with_ended_true(site):
    """DELETE /session with the token: 200 `{"ended": true, …}`; the token is refused afterwards.

    session.md (review-repo): "{ "ok": true, "data": { "ended": true } }"

    session.md (both branches): "The agent sends a `DELETE` request:"
    """
    token = new_session(site)["session_token"]
    assert end_session(site, token)["ended"] is True
    assert_error(send(site, "GET", f"{API}/cart/view", token), 401, "session_ended")


def test_delete_names_the_audit_artifact_url_when_audit_is_on(site):
    """With audit on the answer has ended_at and the artifact's URL (null with audit off); never the token.

    session.md (agents-protocol): "If audit is enabled, the response includes the URL where the signed audit artifact can be retrieved."

    session.md (agents-protocol): ""session_token": "tok_a1b2c3d4e5f6", "ended_at": "2026-02-19T13:15:00Z", "audit_artifact_url": "/.well-known/agents/api/audit/tok_a1b2c3d4e5f6""

    Deliberate difference (docs/api.md: "Session end answer"): `audit_url` (absolute, with the
    public `session_id`) instead of `audit_artifact_url` (with the token), and no `session_token`.
    """
    data = new_session(site)
    ended = end_session(site, data["session_token"])
    assert set(ended) == {"ended", "session_id", "ended_at", "audit_url"}
    assert ended["audit_url"] == f"{site}{API}/audit/{data['session_id']}"
    assert parse_time(ended["ended_at"]) <= timezone.now()
    assert site.http.get(ended["audit_url"], headers=bearer(data["session_token"]), timeout=TIMEOUT).ok
    turn_audit_off()
    assert end_session(site, new_session(site)["session_token"])["audit_url"] is None


def test_checkout_keeps_the_session_alive_until_its_ttl(site):
    """After checkout the session still answers (the cart can be viewed); its trail is not sealed yet.

    session.md (both branches): "The site MAY end the session immediately or keep it alive until the TTL for the agent to view the final cart state."
    """
    data = new_session(site)
    token = data["session_token"]
    ok_data(send(site, "POST", f"{API}/cart/add", token, {"item_id": MUG}))
    ok_data(send(site, "POST", f"{API}/checkout", token))
    ok_data(send(site, "GET", f"{API}/cart/view", token))
    assert_error(send(site, "GET", f"{API}/audit/{data['session_id']}", token), 425, "session_live")


def test_sessions_are_independent(site):
    """Two sessions of one agent: an item added in one is not in the other's cart.

    session.md (both branches): "- Each session is independent. Cart contents are not shared across sessions."
    """
    first, second = new_session(site)["session_token"], new_session(site)["session_token"]
    ok_data(send(site, "POST", f"{API}/cart/add", first, {"item_id": MUG}))
    assert ok_data(send(site, "GET", f"{API}/cart/view", second))["items"] == []
    assert [i["item_id"] for i in ok_data(send(site, "GET", f"{API}/cart/view", first))["items"]] == [MUG]


def test_max_sessions_allows_that_many_and_answers_429_beyond(site):
    """max_sessions = 2: two live sessions, the third is 429 (with Retry-After: until the first of
    them expires); ending one frees a place.

    session.md (agents-protocol): "- An agent MAY have multiple active sessions with the same site, up to the `rate_limit.max_sessions` limit."

    session.md (agents-protocol): "- Sites SHOULD enforce the `max_sessions` limit and return `429` if exceeded."
    """
    set_limits(max_sessions=2)
    assert agents_json(site)["rate_limit"]["max_sessions"] == 2
    first = new_session(site)["session_token"]
    expire_in(new_session(site)["session_id"], 300)  # opened last, expires first
    refused = site.http.post(site + SESSION_PATH, timeout=TIMEOUT)
    assert_error(refused, 429, "too_many_sessions")
    assert 290 <= int(refused.headers["Retry-After"]) <= 300
    end_session(site, first)
    new_session(site)


def test_a_key_rotation_invalidates_every_session(site):
    """Rotating the signing key ends every live session: their tokens are 401 afterwards.

    session.md (both branches): "- Sites MUST invalidate all sessions if a security event is detected (e.g., key rotation)."
    """
    tokens = [new_session(site)["session_token"] for _ in range(2)]
    old_key = agents_json(site)["audit"]["public_key"]
    rotate_key()
    assert agents_json(site)["audit"]["public_key"] != old_key
    for token in tokens:
        assert_error(send(site, "GET", f"{API}/cart/view", token), 401, "session_ended")


# --------------------------------------------------------------------------- audit

def test_every_call_of_the_session_is_logged(trail):
    """The trail holds each call of the session in order, with its capability, method and status.

    audit.md (agents-protocol): "1. **What did the agent do?** -- Every capability call is logged."

    audit.md (agents-protocol): "| `capability` | The capability name (e.g., `cart.add`). | | `method` | HTTP method. |"

    audit.md (agents-protocol): "| `response_status` | HTTP status code returned. |"

    Deliberate difference (docs/api.md: "Audit artifact format"): one event per call, opened by
    `session.create` and closed by `session.end`, not the review-repo branch's
    `ToolCalled`/`ToolReturned` pairs.
    """
    events = trail.artifact["events"]
    called = ["search", "cart.add", "cart.add", "detail", "contact"]
    assert [(e["capability"], e["method"], e["response_status"]) for e in events[1:-1]] == [
        (capability, method, answer.status_code)
        for capability, (method, _, _), answer in zip(called, trail.calls, trail.answers)]
    assert [answer.status_code for answer in trail.answers] == [200, 200, 400, 404, 200]
    assert (events[0]["capability"], events[-1]["capability"]) == ("session.create", "session.end")


def test_each_event_carries_the_documented_fields(trail):
    """event_id (unique), timestamp (ISO 8601), capability, method, params, policy_result, response_status, prev_hash.

    audit.md (agents-protocol): "| `event_id` | Unique event identifier. | | `timestamp` | ISO 8601 timestamp. |"

    audit.md (agents-protocol): "| `params` | Request parameters (sensitive values redacted). | | `policy_result` | `allow` or `deny`, with the rule that matched. |"

    policy_result is `allow`, or `deny:<code>` naming the refusal the agent received (the rule
    that matched).
    """
    events = trail.artifact["events"]
    assert len({e["event_id"] for e in events}) == len(events)
    for event in events:
        assert {"event_id", "timestamp", "capability", "method", "params", "policy_result", "response_status",
                "prev_hash"} <= set(event)
        assert parse_time(event["timestamp"]).tzinfo is not None and isinstance(event["params"], dict)
    codes = [answer.json().get("code") for answer in trail.answers]
    assert [e["policy_result"] for e in events[1:-1]] == [
        "allow" if code is None else f"deny:{code}" for code in codes]


def test_each_event_holds_the_sha256_of_the_previous_one(trail):
    """prev_hash is "" for the first event, then the SHA-256 of the event before (its RFC 8785 JSON).

    audit.md (agents-protocol): "| `prev_hash` | SHA-256 hash of the previous event (empty for the first event). |"

    audit.md (agents-protocol): "Each event includes a SHA-256 hash of the previous event, forming an append-only chain."
    """
    events = trail.artifact["events"]
    assert trail.artifact["canonicalization"] == "RFC8785"
    assert events[0]["prev_hash"] == "" and first_broken_link(events) is None
    assert all(event["event_hash"] == event_hash(event) for event in events)


def test_editing_or_removing_an_event_breaks_the_chain(trail):
    """Change one event's params, or drop one event: the chain no longer links.

    audit.md (agents-protocol): "If any event is modified or removed after the fact, the chain breaks and verification fails."
    """
    events = trail.artifact["events"]
    edited = [dict(e) for e in events]
    edited[2] = {**edited[2], "params": {**edited[2]["params"], "quantity": 20}}
    assert first_broken_link(edited) == 3
    assert first_broken_link(events[:2] + events[3:]) == 2


def test_the_root_hash_covers_every_event(trail):
    """root_hash = SHA-256 of the events' hashes, concatenated in order.

    audit.md (agents-protocol): "2. Computes a root hash over all events."

    audit.md (agents-protocol): "3. **Verify the root hash.** Hash all events together and confirm the result matches `root_hash`."
    """
    chain = "".join(event_hash(event) for event in trail.artifact["events"])
    assert hashlib.sha256(chain.encode()).hexdigest() == trail.artifact["root_hash"]


def test_the_signature_is_ed25519_over_the_root_hash(trail):
    """`signature` verifies, with the Ed25519 public key, over root_hash (its ASCII bytes).

    audit.md (agents-protocol): "3. Signs the root hash with the site's Ed25519 private key."

    audit.md (agents-protocol): "4. **Verify the signature.** Use the Ed25519 public key to verify that `signature` is a valid signature of `root_hash`."

    audit.md (both branches): "Sites that set `audit.enabled: true` in `agents.json` produce a signed artifact for every session."
    """
    artifact = trail.artifact
    assert artifact["algorithm"] == "Ed25519"
    key = load_der_public_key(base64.b64decode(artifact["public_key"]))
    key.verify(base64.b64decode(artifact["signature"]), artifact["root_hash"].encode("ascii"))  # raises if not


def test_the_artifact_key_is_the_one_agents_json_publishes(trail):
    """The artifact's public_key is agents.json's audit.public_key.

    audit.md (agents-protocol): "1. **Get the public key.** It is in the artifact itself and in `agents.json` at `audit.public_key`. For strong verification, compare both sources."
    """
    assert trail.artifact["public_key"] == trail.document["audit"]["public_key"]


def test_the_artifact_holds_the_documented_fields(trail, site):
    """session_id, site, created_at, ended_at, events, root_hash, signature, public_key, in `data`.

    audit.md (agents-protocol): "The artifact contains the full event chain plus the signature. It is self-contained and can be verified without contacting the site."

    audit.md (agents-protocol): ""session_id": "tok_a1b2c3d4e5f6", "site": "https://acmeceramics.example.com", "created_at": "2026-02-19T13:00:00Z", "ended_at": "2026-02-19T13:15:00Z","

    Deliberate difference (docs/api.md: "Audit artifact format"): `session_id` is the public
    session id, not the token; there is no `agent` object (see the first event); `format`,
    `end_reason`, `algorithm`, `canonicalization` and `key_id` are added. `site` is the site's URL,
    as agents.json publishes it.
    """
    artifact = trail.artifact
    assert {"session_id", "site", "created_at", "ended_at", "events", "root_hash", "signature",
            "public_key"} <= set(artifact)
    assert artifact["session_id"] == trail.session["session_id"]
    assert artifact["site"] == agents_json(site)["site"]["url"]
    assert parse_time(artifact["created_at"]) <= parse_time(artifact["ended_at"])
    assert trail.fetched.headers["Content-Type"] == JSON_UTF8


def test_the_artifact_is_fetched_by_session_id_with_the_sessions_token(trail, site):
    """GET <audit.endpoint with :session_id> answers the artifact to the bearer of that session's token only.

    audit.md (both branches): "GET /.well-known/agents/api/audit/:session_id"

    audit.md (both branches): "The `:session_id` is the session token from the original session."

    Deliberate difference (docs/api.md: "Audit URL"): the path names the public `session_id` of
    the create answer, and the token travels as `Authorization: Bearer`: 401 without it, 404 with
    another session's; the token in the path is no session id (404).
    """
    path = audit_path(trail.document, trail.session["session_id"])
    assert path == f"{API}/audit/{trail.session['session_id']}"
    assert ok_data(send(site, "GET", path, trail.token))["root_hash"] == trail.artifact["root_hash"]
    assert_error(send(site, "GET", path), 401, "session_required")
    other = new_session(site)["session_token"]
    assert_error(send(site, "GET", path, other), 404, "unknown_session")
    assert_error(send(site, "GET", audit_path(trail.document, trail.token), trail.token), 404, "unknown_session")


def test_425_while_the_session_is_live(trail, site):
    """The trail of a live session is 425 (with Retry-After: until the session expires), not an artifact.

    audit.md (both branches): "| `425` | Session is still active. Artifact not yet produced. |"
    """
    assert_error(trail.live, 425, "session_live")
    session = new_session(site)
    expire_in(session["session_id"], 300)
    live = send(site, "GET", audit_path(trail.document, session["session_id"]), session["session_token"])
    assert_error(live, 425, "session_live")
    assert 290 <= int(live.headers["Retry-After"]) <= 300


def test_404_for_a_session_without_a_trail(site):
    """An unknown session id is 404.

    audit.md (both branches): "| `404` | Session not found or audit not enabled for this session. |"
    """
    token = new_session(site)["session_token"]
    assert_error(send(site, "GET", f"{API}/audit/ses_nosuchsession", token), 404, "unknown_session")


def test_an_expired_session_produces_its_artifact(site):
    """A session past its deadline, never ended by the agent, has its signed trail (end_reason expired).

    audit.md (both branches): "When the session ends (expiry, explicit `DELETE`, or checkout completion), the RER runtime:"
    """
    data = new_session(site)
    ok_data(send(site, "GET", f"{API}/cart/view", data["session_token"]))
    move_deadline(data["session_id"], 1801)
    artifact = ok_data(send(site, "GET", f"{API}/audit/{data['session_id']}", data["session_token"]))
    assert artifact["end_reason"] == "expired" and artifact["events"][-1]["params"] == {"reason": "expired"}


def test_sensitive_params_are_redacted_and_the_token_never_appears(trail):
    """contact's name, email and message are `sha256:<hex>`; neither the token nor the email is in the artifact.

    audit.md (agents-protocol): "- The `params` field in each event SHOULD redact sensitive values (e.g., replace card numbers with `****`)."

    audit.md (agents-protocol): "- The session token stored in the artifact SHOULD be hashed, not stored in plaintext."

    audit.md (both branches): "- Sites MUST NOT include sensitive user data (passwords, payment details, full addresses) in audit events."
    """
    (contact,) = [e for e in trail.artifact["events"] if e["capability"] == "contact"]
    assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", contact["params"][key]) for key in ("name", "email", "message"))
    assert trail.token not in trail.fetched.text and "ada@example.com" not in trail.fetched.text


def test_with_audit_off_the_endpoint_is_404_and_sessions_still_work(site):
    """audit.enabled false: sessions work, no artifact URL, the audit endpoint is 404 for every session id
    (no endpoint is served there: `not_found`), with or without a token.

    audit.md (both branches): "- The audit endpoint returns `404` for all session IDs. - Sessions still work normally; they just do not produce artifacts."
    """
    turn_audit_off()
    assert agents_json(site)["audit"]["enabled"] is False
    data = new_session(site)
    ok_data(send(site, "POST", f"{API}/cart/add", data["session_token"], {"item_id": MUG}))
    assert end_session(site, data["session_token"])["audit_url"] is None
    for session_id in (data["session_id"], "ses_nosuchsession"):
        assert_error(send(site, "GET", f"{API}/audit/{session_id}", data["session_token"]), 404, "not_found")
        assert_error(send(site, "GET", f"{API}/audit/{session_id}"), 404, "not_found")


def test_artifacts_are_kept_30_days_then_404(site):
    """Pruning keeps a trail that ended 29 days ago and removes one that ended 31 days ago (then 404).

    audit.md (agents-protocol): "Sites SHOULD retain audit artifacts for at least 30 days after session end."

    audit.md (both branches): "After the retention period, the artifact endpoint returns `404`."
    """
    sessions = [new_session(site) for _ in range(2)]
    for data, days in zip(sessions, (29, 31)):
        end_session(site, data["session_token"])
        AgentSession.objects.filter(public_id=data["session_id"]).update(
            ended_at=timezone.now() - timedelta(days=days))
    call_command("agents_audit", "prune")
    kept, pruned = (send(site, "GET", f"{API}/audit/{d['session_id']}", d["session_token"]) for d in sessions)
    assert ok_data(kept)["session_id"] == sessions[0]["session_id"]
    assert_error(pruned, 404, "unknown_session")


# --------------------------------------------------------------------------- the rule, kept

META_TESTS = {"test_every_conformance_test_quotes_its_source", "test_every_quotation_is_verbatim_in_its_source",
              "test_every_difference_is_documented_and_every_documented_difference_is_tested"}
SPEC_FILES = ("agents-txt.md", "agents-json.md", "interaction-api.md", "session.md", "audit.md")
BRANCHES = {"agents-protocol": ("agents-protocol",), "review-repo": ("review-repo",),
            "both branches": ("agents-protocol", "review-repo")}
CITATION = re.compile(r'(?P<file>[a-z-]+\.md) \((?P<where>agents-protocol|review-repo|both branches)\): "(?P<quote>.+)"')
DIFFERENCE = re.compile(r'^Deliberate difference \(docs/api\.md: "(?P<entry>[^"]+)"\): \S')
DIFFERENCES_HEADING = "## Where this profile differs from the protocol's documents, and why"


def conformance_tests():
    return {name: obj for name, obj in globals().items()
            if name.startswith("test_") and callable(obj) and name not in META_TESTS}


def paragraphs(function):
    return [" ".join(p.split()) for p in (inspect.getdoc(function) or "").split("\n\n")]


def citations(function):
    return [m for m in (CITATION.fullmatch(p) for p in paragraphs(function)) if m]


def normalized(text):
    return " ".join(text.split())


def test_every_conformance_test_quotes_its_source():
    """Each test's docstring has a paragraph `<file>.md (<branch>): "<quotation>"` naming a spec file."""
    tests = conformance_tests()
    assert len(tests) >= 80
    unquoted = [name for name, test in tests.items() if not citations(test)]
    assert not unquoted, f"tests without a quotation of the documents: {unquoted}"
    unknown = [(name, m["file"]) for name, test in tests.items() for m in citations(test) if m["file"] not in SPEC_FILES]
    assert not unknown, unknown


def test_every_quotation_is_verbatim_in_its_source():
    """Each quotation (each excerpt of it) is in the named file of each named branch, whitespace aside."""
    texts = {(branch, name): normalized((SPEC / branch / name).read_text()) for branch in ("agents-protocol", "review-repo")
             for name in SPEC_FILES}
    missing = []
    for test_name, test in conformance_tests().items():
        for m in citations(test):
            for excerpt in m["quote"].split('" … "'):
                for branch in BRANCHES[m["where"]]:
                    if normalized(excerpt) not in texts[(branch, m["file"])]:
                        missing.append(f"{test_name}: {branch}/{m['file']}: {excerpt}")
    assert not missing, "\n".join(missing)


def test_every_difference_is_documented_and_every_documented_difference_is_tested():
    """`Deliberate difference (docs/api.md: "<entry>")` names an entry of docs/api.md's section, and each entry is named."""
    text = API_DOC.read_text()
    start = text.index(f"\n{DIFFERENCES_HEADING}\n")
    end = text.find("\n## ", start + 1)
    entries = re.findall(r"^- \*\*(.+?)\.\*\* ", text[start:end], flags=re.MULTILINE)
    assert len(entries) == len(set(entries)) and len(entries) >= 10, entries
    named = {m["entry"] for test in conformance_tests().values()
             for m in (DIFFERENCE.match(p) for p in paragraphs(test)) if m}
    assert not named - set(entries), f"differences not in docs/api.md: {sorted(named - set(entries))}"
    assert not set(entries) - named, f"entries of docs/api.md no test asserts: {sorted(set(entries) - named)}"
