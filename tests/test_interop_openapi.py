"""The OpenAPI 3.1 document of the agent API: valid, generated from the config, and true of the
running site according to schemathesis (no 5xx, every answer fits the documented schemas): the
document is read in process, schemathesis runs against a gunicorn site."""
import json
import os
import re
import subprocess
import sys

import pytest
import requests
from openapi_spec_validator import OpenAPIV31SpecValidator, validate

from agents_protocol.core.capabilities import register, unregister
from agents_protocol.models import Capability, CapabilityParam, SessionConfig
from tests.api_client import IN_PROCESS_URL
from tests.hypothesis_profiles import THOROUGH, examples
from tests.servers import ROOT, start_site

OPENAPI = "/.well-known/agents/openapi.json"
API = "/.well-known/agents/api"
SESSION_SECURITY = [{"bearerSession": []}, {"sessionTokenHeader": []}, {"agentSessionHeader": []}]
TRIMMED_TEXT = "^\\s*[^\\s\\x00][^\\x00]*$"  # one character or more once trimmed, and no NUL


def fetch(http):
    response = http.get(f"{IN_PROCESS_URL}{OPENAPI}", timeout=10)
    assert response.status_code == 200
    return response.json()


def operations(document):
    return {(path, method.upper()): op for path, item in document["paths"].items() for method, op in item.items()}


def test_openapi_spec_validator_accepts_it(http):
    validate(fetch(http), cls=OpenAPIV31SpecValidator)


def test_every_capability_and_the_session_endpoints_are_operations(http):
    document = fetch(http)
    declared = http.get(f"{IN_PROCESS_URL}/.well-known/agents.json", timeout=10).json()["capabilities"]
    ops = operations(document)
    expected = {(c["endpoint"].replace(":id", "{id}"), c["method"]): c for c in declared}
    sessions_and_audit = {(f"{API}/session", "POST"), (f"{API}/session", "DELETE"), (f"{API}/audit/{{session_id}}", "GET")}
    assert set(ops) == set(expected) | sessions_and_audit
    assert ops[(f"{API}/audit/{{session_id}}", "GET")]["responses"]["425"] == {"$ref": "#/components/responses/TooEarly"}
    for key, capability in expected.items():
        op = ops[key]
        assert op["operationId"] == capability["name"]
        assert (op.get("security") == SESSION_SECURITY) == capability["requires_session"]
        assert op["responses"]["200"]["content"]["application/json"]["schema"]["required"] == ["ok", "data"]
        assert ("401" in op["responses"]) == capability["requires_session"]
    assert document["servers"] == [{"url": IN_PROCESS_URL}]
    assert document["components"]["securitySchemes"]["bearerSession"] == {
        "type": "http", "scheme": "bearer", "description": f"The session_token from POST {API}/session"}


def test_parameters_follow_the_method_and_the_path_template(http):
    ops = operations(fetch(http))
    detail = ops[(f"{API}/detail/{{id}}", "GET")]
    assert detail["parameters"] == [{"name": "id", "in": "path", "required": True, "schema": {
        "type": "string", "description": "Product ID (path parameter; ?id= also works)",
        "minLength": 1, "maxLength": 200, "pattern": TRIMMED_TEXT}}]  # blank text is refused
    browse = {p["name"]: p for p in ops[(f"{API}/browse", "GET")]["parameters"]}
    assert browse["sort"]["in"] == "query" and browse["sort"]["schema"]["enum"] == ["price_asc", "price_desc", "newest"]
    add = ops[(f"{API}/cart/add", "POST")]
    assert [(p["name"], p["in"], p["required"]) for p in add["parameters"]] == [("Idempotency-Key", "header", False)]
    assert set(add["responses"]) >= {"409", "422", "503"}
    assert add["requestBody"]["required"] is True
    assert add["requestBody"]["content"]["application/json"]["schema"]["required"] == ["item_id"]
    remove = ops[(f"{API}/cart/remove", "DELETE")]  # a JSON body, as the review-repo branch and seed 001 say
    assert remove["parameters"] == [] and remove["requestBody"]["required"] is True
    assert remove["requestBody"]["content"]["application/json"]["schema"]["required"] == ["item_id"]
    assert ops[(f"{API}/session", "POST")]["parameters"] == []  # a replay would hand the token to another client
    created = ops[(f"{API}/session", "POST")]["responses"]["201"]["content"]["application/json"]["schema"]
    assert created["properties"]["data"]["required"] == ["session_token", "session_id", "expires_at",
                                                         "ttl_seconds", "capabilities", "audit"]
    assert created["properties"]["data"]["properties"]["audit"]["type"] == "boolean"


def test_admin_changes_move_paths_and_add_custom_capabilities(http):
    register("reserve", lambda call: {"reserved": call.params["item_id"]})
    try:
        reserve = Capability.objects.create(name="reserve", endpoint=f"{API}/reserve/:item_id", method="POST",
                                            requires_session=True, position=20)
        CapabilityParam.objects.create(capability=reserve, name="item_id", type="string", required=True)
        CapabilityParam.objects.create(capability=reserve, name="days", type="integer", default=3, position=1)
        session = SessionConfig.load()
        session.create_endpoint = session.delete_endpoint = f"{API}/sessions"
        session.save()

        document = fetch(http)
        validate(document, cls=OpenAPIV31SpecValidator)
        ops = operations(document)
        op = ops[(f"{API}/reserve/{{item_id}}", "POST")]
        assert [p["name"] for p in op["parameters"]] == ["item_id", "Idempotency-Key"]
        assert op["requestBody"] == {"required": False, "content": {"application/json": {"schema": {
            "type": "object", "properties": {"days": {"type": "integer", "default": 3, "minimum": -(2**53 - 1),
                                                      "maximum": 2**53 - 1}}}}}}  # the safe integers, enforced
        assert op["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["data"] == {
            "description": "Data returned by this site's reserve handler"}
        assert (f"{API}/sessions", "POST") in ops and (f"{API}/session", "POST") not in ops
    finally:
        unregister("reserve")


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory):
    site = start_site(tmp_path_factory.mktemp("schemathesis-site"), workers=2)
    try:
        loaded = site.manage("load_demo_catalog")
        assert loaded.returncode == 0, loaded.stderr
        # The default 60 requests per minute would answer most of schemathesis' calls with a 429.
        config = json.loads(site.manage("agents_config", "export").stdout)
        config["rate_limit"]["requests_per_minute"] = 100_000
        imported = site.manage("agents_config", "import", "-", input=json.dumps(config))
        assert imported.returncode == 0, imported.stderr
        yield site
    finally:
        site.stop()


def schemathesis(site, workdir, *options):
    """schemathesis' own CLI with all its default checks, bounded: a fixed seed, 10 examples per
    operation (positive and negative), no stateful phase; a fresh Idempotency-Key per request
    (tests/schemathesis_hooks.py). HYPOTHESIS_PROFILE=thorough (tests/hypothesis_profiles.py) gives 25 and adds
    the coverage phase (every boundary case the schema defines: about 450 calls, most of a minute).

    One worker: with threads, Python 3.11's ast.parse (which hypothesis uses to describe
    strategies) fails now and then with "AST constructor recursion depth mismatch".
    """
    phases = "examples,coverage,fuzzing" if THOROUGH else "examples,fuzzing"
    return subprocess.run(
        [sys.executable, "-m", "schemathesis.cli", "run", f"{site.url}{OPENAPI}", "--phases", phases, "--max-examples", str(examples(10, 25)), "--seed", "20261122",
         "--request-timeout", "10", *options],
        cwd=workdir, capture_output=True, text=True, timeout=240,
        env={**os.environ, "SCHEMATHESIS_HOOKS": "tests.schemathesis_hooks", "PYTHONPATH": str(ROOT)},
    )


def test_schemathesis_finds_no_server_error_and_no_answer_outside_the_schema(demo_site, tmp_path):
    # First with a live session (every operation but the one that would end it), then anonymously.
    created = requests.post(f"{demo_site.url}{API}/session", json={"agent_name": "schemathesis"}, timeout=10)
    token = created.json()["data"]["session_token"]
    authenticated = schemathesis(demo_site, tmp_path, "-H", f"Authorization: Bearer {token}",
                                 "--exclude-operation-id", "session.delete")
    assert authenticated.returncode == 0, authenticated.stdout[-6000:] + authenticated.stderr[-2000:]
    anonymous = schemathesis(demo_site, tmp_path)
    assert anonymous.returncode == 0, anonymous.stdout[-6000:] + anonymous.stderr[-2000:]
    total = len(operations(requests.get(f"{demo_site.url}{OPENAPI}", timeout=10).json()))
    for run, tested in ((authenticated, total - 1), (anonymous, total)):
        assert f"Tested: {tested}" in run.stdout
        # ("skipped" counts cases schemathesis could not send, such as NUL in a header.)
        generated, passed = re.search(r"(\d+) generated, (\d+) passed\b", run.stdout).groups()
        assert int(generated) == int(passed) > 0
