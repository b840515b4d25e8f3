"""/.well-known/pactspec.json: valid PactSpec v1, examples from real answers, invocable skills (in
process), and generated test suites that the official PactSpec CLI runs green against a live server."""
import io
import json
import os
import re
import subprocess
from pathlib import Path

import pactspec
import pytest
import requests
from django.core.wsgi import get_wsgi_application
from django.db import OperationalError
from jsonschema import Draft202012Validator, FormatChecker

from acme.agents import AcmeProvider
from agents_protocol.core.capabilities import register, unregister
from agents_protocol.http import publishing
from agents_protocol.models import Capability
from agents_protocol.wsgi import DocumentReplay
from catalog.demo import load_demo_catalog
from tests.api_client import IN_PROCESS_URL, AgentClient, ok_data
from tests.build_cache import npm_installed

ROOT = Path(__file__).resolve().parents[1]
CLI_PROJECT = ROOT / "tools" / "pactspec"
SEED_003 = ROOT.parent / "shared" / "seeds" / "003_ac903e7fa75deb5d.txt"
PACKAGE_SCHEMA = Path(pactspec.__file__).parent / "schema.json"
# The seed sits beside the repository in CI (../shared); the package's own copy always ships.
SCHEMAS = {"pactspec-package": PACKAGE_SCHEMA, **({"seed-003": SEED_003} if SEED_003.exists() else {})}
INVOKE = "/.well-known/agents/pactspec"
SITE = f"{IN_PROCESS_URL}:8000"  # in process, at a URL with a port, as a server's


def served_spec(http, base_url):
    """The demo catalog loaded, pactspec.json as `http` (requests' API) gets it from `base_url`."""
    load_demo_catalog()
    response = http.get(f"{base_url}/.well-known/pactspec.json", timeout=10)
    assert response.status_code == 200
    return response.json()


@pytest.fixture
def spec(http):
    return served_spec(http, SITE)


@pytest.fixture
def live_spec(live_server):
    """As a live server publishes it, for the official CLI, which calls the skills it names."""
    return served_spec(requests, live_server.url)


def skills_by_id(spec):
    return {skill["id"]: skill for skill in spec["skills"]}


def post(http, path, body, **headers):
    return http.post(f"{SITE}{path}", json=body, headers=headers, timeout=10, allow_redirects=False)


def test_validates_with_the_pactspec_sdk(spec):
    result = pactspec.validate_spec(spec)
    assert result.valid, result.errors


@pytest.mark.parametrize("schema_path", SCHEMAS.values(), ids=SCHEMAS.keys())
def test_validates_with_draft_2020_12_and_format_checks(spec, schema_path):
    schema = json.loads(schema_path.read_text())
    errors = list(Draft202012Validator(schema, format_checker=FormatChecker()).iter_errors(spec))
    assert errors == []


def test_one_free_skill_per_enabled_capability_with_a_test_suite(spec, http):
    capabilities = http.get(f"{SITE}/.well-known/agents.json", timeout=10).json()["capabilities"]
    assert [s["id"] for s in spec["skills"]] == [c["name"].replace(".", "-") for c in capabilities]
    assert spec["id"] == "urn:pactspec:testserver-8000:acme-ceramics"
    assert spec["endpoint"] == {"url": f"{SITE}{INVOKE}", "auth": {"type": "bearer"}}
    assert spec["provider"]["contact"] == "support@acmeceramics.example.com"
    for skill in spec["skills"]:
        assert skill["pricing"] == {"model": "free", "amount": 0, "currency": "USD", "protocol": "none"}
        assert skill["testSuite"] == {"url": f"{SITE}{INVOKE}/{skill['id']}/tests.json",
                                      "type": "http-roundtrip"}
    add = skills_by_id(spec)["cart-add"]["inputSchema"]
    assert add["required"] == ["item_id"]
    assert add["properties"]["quantity"] == {"type": "integer", "description": "Quantity to add", "default": 1,
                                             "minimum": 1, "maximum": 1000}


def test_examples_are_real_answers_and_fit_their_schemas(spec, http):
    examples = {s["id"]: s["examples"] for s in spec["skills"] if "examples" in s}
    assert set(examples) == {"search", "browse", "detail"}
    skills = skills_by_id(spec)
    for skill_id, [example] in examples.items():
        skill = skills[skill_id]
        Draft202012Validator(skill["inputSchema"], format_checker=FormatChecker()).validate(example["input"])
        Draft202012Validator(skill["outputSchema"], format_checker=FormatChecker()).validate(example["expectedOutput"])
        # The example is what the site answers for that input, through the skill and through the API.
        answer = post(http, f"{INVOKE}/{skill_id}", example["input"])
        assert answer.status_code == 200 and answer.json() == example["expectedOutput"]
    detail_id = examples["detail"][0]["input"]["id"]
    api = AgentClient(SITE, django_client=http.django_client).get(f"/.well-known/agents/api/detail/{detail_id}")
    assert ok_data(api) == examples["detail"][0]["expectedOutput"]
    assert examples["browse"][0]["expectedOutput"]["items"][0]["id"] == detail_id


def test_skills_are_invoked_by_post_through_the_dispatcher_and_per_skill_urls(spec, http):
    item = skills_by_id(spec)["detail"]["examples"][0]["input"]["id"]
    via_dispatcher = post(http, INVOKE, {"skill": "detail", "input": {"id": item}})
    via_skill_url = post(http, f"{INVOKE}/detail", {"id": item})
    assert via_dispatcher.status_code == via_skill_url.status_code == 200
    assert via_dispatcher.json() == via_skill_url.json()
    assert via_dispatcher.headers["Access-Control-Allow-Origin"] == "*"

    shopper = AgentClient(SITE, django_client=http.django_client)
    token = shopper.start_session()["session_token"]
    added = post(http, f"{INVOKE}/cart-add", {"item_id": item, "quantity": 2}, Authorization=f"Bearer {token}")
    assert added.status_code == 200, added.text
    Draft202012Validator(skills_by_id(spec)["cart-add"]["outputSchema"], format_checker=FormatChecker()).validate(
        added.json())
    assert shopper.cart()["items"][0]["quantity"] == 2  # the same session, seen through the agent API


def test_refusals_use_the_protocol_envelope(spec, http):
    missing = post(http, f"{INVOKE}/detail", {})
    assert missing.status_code == 400 and missing.json()["fields"] == {"id": "This parameter is required."}
    unknown_skill = post(http, INVOKE, {"skill": "teleport", "input": {}})
    assert unknown_skill.status_code == 400 and unknown_skill.json()["code"] == "unknown_skill"
    for path in ("/teleport", "/cart.add", "/detail/", "/detail/tests.json/more", "/"):  # never the site's HTML page
        no_such_url = post(http, f"{INVOKE}{path}", {})
        assert no_such_url.status_code == 404 and no_such_url.json()["code"] == "not_found", path
    for path in ("/.well-known/agents/a2a/", "/.well-known/agents/nothing-here"):
        elsewhere = http.delete(f"{SITE}{path}", timeout=10)
        assert elsewhere.status_code == 404 and elsewhere.json()["code"] == "not_found", path
        assert "X-RateLimit-Remaining" in elsewhere.headers  # counted against the address, as the API's 404
    no_session = post(http, f"{INVOKE}/cart-view", {})
    assert no_session.status_code == 401 and no_session.json()["code"] == "session_required"
    not_json = http.post(f"{SITE}{INVOKE}/detail", data="id=1", timeout=10,
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert not_json.status_code == 415 and not_json.json()["ok"] is False
    wrong_method = http.get(f"{SITE}{INVOKE}/detail", timeout=10)
    assert wrong_method.status_code == 405 and wrong_method.headers["Allow"] == "POST, OPTIONS"


def test_clashing_skill_ids_get_a_suffix_and_still_reach_their_capability(http):
    register("cart_add", lambda call: {"handled_by": "cart_add"})
    try:
        Capability.objects.create(name="cart_add", endpoint="/.well-known/agents/api/cart/add-too", method="POST",
                                  position=30)
        spec = http.get(f"{SITE}/.well-known/pactspec.json", timeout=10).json()
        assert [s["id"] for s in spec["skills"]].count("cart-add") == 1
        assert skills_by_id(spec)["cart-add-2"]["name"] == "Cart add"
        assert post(http, f"{INVOKE}/cart-add-2", {}).json() == {"handled_by": "cart_add"}
    finally:
        unregister("cart_add")


@pytest.mark.parametrize("failure, status, code", [
    (OperationalError("database is locked"), 503, "backend_unavailable"),
    (RuntimeError("bug"), 500, "internal_error"),
])
def test_a_failing_skill_answers_an_envelope_503_when_the_database_failed(http, failure, status, code):
    def failing(call):
        raise failure

    register("flaky", failing)
    try:
        Capability.objects.create(name="flaky", endpoint="/.well-known/agents/api/flaky", method="POST", position=31)
        response = post(http, f"{INVOKE}/flaky", {})
        assert response.status_code == status and response.json()["code"] == code
        assert ("Retry-After" in response.headers) == (status == 503)
    finally:
        unregister("flaky")


def test_generated_suites_have_a_happy_path_where_one_can_run_and_a_400_case(spec, http):
    suites = {s["id"]: http.get(s["testSuite"]["url"], timeout=10).json() for s in spec["skills"]}
    for skill_id, suite in suites.items():
        assert suite["version"] == "1.0" and suite["skill"] == skill_id
        assert 400 in [test["expect"]["status"] for test in suite["tests"]]
    assert [t["expect"]["status"] for t in suites["search"]["tests"]] == [200, 400]
    assert [t["expect"]["status"] for t in suites["cart-add"]["tests"]] == [401, 400]
    assert suites["detail"]["tests"][0]["request"]["body"] == {
        "skill": "detail", "input": skills_by_id(spec)["detail"]["examples"][0]["input"]}


@pytest.fixture(scope="module")
def pactspec_cli():
    """The official CLI, installed from the committed lockfile (npm ci, kept in the tests' build cache)."""
    return npm_installed(CLI_PROJECT) / "pactspec"


ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def run_cli(cli, *args):
    """The CLI's output as plain text (it colours it when CI=true, whatever NO_COLOR says)."""
    env = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"}
    done = subprocess.run([str(cli), *args], capture_output=True, text=True, timeout=120, env=env)
    done.stdout, done.stderr = ANSI_ESCAPE.sub("", done.stdout), ANSI_ESCAPE.sub("", done.stderr)
    return done


def test_the_official_cli_validates_the_document_and_passes_every_suite(live_spec, pactspec_cli, tmp_path):
    spec_file = tmp_path / "pactspec.json"
    spec_file.write_text(json.dumps(live_spec))
    validated = run_cli(pactspec_cli, "validate", str(spec_file))
    assert validated.returncode == 0 and "Valid PactSpec document" in validated.stdout, validated.stderr
    for skill in live_spec["skills"]:
        tested = run_cli(pactspec_cli, "test", str(spec_file), "--skill", skill["id"])
        assert tested.returncode == 0, tested.stdout + tested.stderr
        assert f"Running {len(requests.get(skill['testSuite']['url'], timeout=10).json()['tests'])} test" in tested.stdout
        assert " 0 failed" in tested.stdout


def test_the_official_cli_reports_a_suite_that_fails(live_spec, pactspec_cli, tmp_path):
    """The CLI really checks the answers: a wrong endpoint makes the same suite fail."""
    live_spec["endpoint"]["url"] += "/search"  # every body now goes to the search skill, which wants `q`
    spec_file = tmp_path / "pactspec.json"
    spec_file.write_text(json.dumps(live_spec))
    tested = run_cli(pactspec_cli, "test", str(spec_file), "--skill", "detail")
    assert tested.returncode == 1 and "1 failed" in tested.stdout


def test_a_provider_failing_for_a_moment_costs_examples_only_until_it_answers_again(http, monkeypatch):
    """A provider that raises (a database blip) leaves the examples out of the answer, never a 500;
    that answer is kept a few seconds, so public fetches do not ask a failing shop each time, and
    the first request after them, the provider answering, has the examples again."""
    load_demo_catalog()
    failures = []

    def failing(*args, **kwargs):
        failures.append(1)
        raise RuntimeError("the catalog database went away for a moment")

    monkeypatch.setattr(publishing, "seconds_now", lambda: 1000.0)  # however slowly the fetches go
    with monkeypatch.context() as patched:
        patched.setattr(AcmeProvider, "browse", failing)
        during = [http.get(f"{SITE}/.well-known/pactspec.json", timeout=10) for _ in range(5)]
        card = http.get(f"{SITE}/.well-known/agent-card.json", timeout=10)
    assert {answer.status_code for answer in during} == {card.status_code} == {200}
    assert not any("examples" in skill for skill in during[-1].json()["skills"])
    assert len(failures) == 2  # once for pactspec.json, once for the card: not once a fetch
    still_kept = http.get(f"{SITE}/.well-known/pactspec.json", timeout=10).json()
    assert not any("examples" in skill for skill in still_kept["skills"])

    monkeypatch.setattr(publishing, "seconds_now", lambda: 1000.0 + publishing.INCOMPLETE_RETRY_SECONDS)
    after = http.get(f"{SITE}/.well-known/pactspec.json", timeout=10).json()
    assert {skill["id"] for skill in after["skills"] if "examples" in skill} == {"search", "browse", "detail"}


@pytest.mark.django_db(transaction=True)  # the WSGI handler closes the connection after each request
def test_an_incomplete_document_is_never_replayed_from_memory(monkeypatch):
    """The site's WSGI entry point replays documents ahead of Django (agents_protocol.wsgi):
    one a failing provider left without examples is answered no-store, so it is not kept."""
    load_demo_catalog()
    replay = DocumentReplay(get_wsgi_application())

    def fetched():
        started = {}
        environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/.well-known/pactspec.json", "QUERY_STRING": "",
                   "SERVER_NAME": "testserver", "SERVER_PORT": "80", "HTTP_HOST": "testserver",
                   "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(), "wsgi.errors": io.StringIO()}
        body = b"".join(replay(environ, lambda status, headers, exc_info=None: started.update(headers,
                                                                                              status=status)))
        assert started["status"] == "200 OK", body
        return started, {skill["id"] for skill in json.loads(body)["skills"] if "examples" in skill}

    def failing(*args, **kwargs):
        raise RuntimeError("the catalog database went away for a moment")

    monkeypatch.setattr(publishing, "seconds_now", lambda: 1000.0)
    with monkeypatch.context() as patched:
        patched.setattr(AcmeProvider, "browse", failing)
        headers, examples = fetched()
    assert headers["Cache-Control"] == "no-store" and examples == set()
    monkeypatch.setattr(publishing, "seconds_now", lambda: 1000.0 + publishing.INCOMPLETE_RETRY_SECONDS)
    headers, examples = fetched()
    assert examples == {"search", "browse", "detail"} and headers["Cache-Control"].startswith("public")
