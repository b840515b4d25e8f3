"""ACP against a gunicorn site: one whole flow over real HTTP, and schemathesis with the spec's
own OpenAPI document (tests/data/acp, its `servers` replaced by the site's URL).

schemathesis draws EXAMPLES positive and EXAMPLES negative cases per operation (15 each: 150
calls; derandomized), with the platform's key, API-Version and Content-Type as any platform
sends them, the path's checkout_session_id a real checkout of the platform and a fresh
Idempotency-Key per request, and runs all its default checks on every answer. What fails only because the document
contradicts its own RFC is KNOWN_SPEC_FAULTS, each with the RFC's sentence; anything else fails.
"""
import json
import uuid
from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.core.failures import FailureGroup

from agents_protocol.transports import acp_shapes
from tests.acp_support import FULFILLMENT, SHOP, VERSION, create_body, pay_body
from tests.hypothesis_profiles import examples
from tests.servers import start_site

SPEC = Path(__file__).parent / "data" / "acp" / "openapi.agentic_checkout.json"
EXAMPLES = examples(15, 50)
COMPLETE = "POST /checkout_sessions/{checkout_session_id}/complete"
REQUEST_SCHEMAS = {"POST /checkout_sessions": "CheckoutSessionCreateRequest",
                   "POST /checkout_sessions/{checkout_session_id}": "CheckoutSessionUpdateRequest",
                   COMPLETE: "CheckoutSessionCompleteRequest",
                   "POST /checkout_sessions/{checkout_session_id}/cancel": "CancelSessionRequest"}
# (operation, a phrase of the failure) → the RFC's sentence the document contradicts
RETRIEVE, CANCEL = "GET /checkout_sessions/{checkout_session_id}", "POST /checkout_sessions/{checkout_session_id}/cancel"
AUTH_REQUIRED = "rfc.agentic_checkout.md §3.1: `Authorization: Bearer <token>` (REQUIRED); the operation documents no 401."
VERSION_400 = ("rfc.agentic_checkout.md §2.1: servers SHOULD return HTTP 400 Bad Request with a supported_versions "
               "array; the operation documents no 400.")
KNOWN_SPEC_FAULTS = {
    (RETRIEVE, "Received: 401"): AUTH_REQUIRED,
    (CANCEL, "Received: 401"): AUTH_REQUIRED,
    (RETRIEVE, "Received: 400"): VERSION_400,
    (COMPLETE, "'order' was unexpected"): "rfc.agentic_checkout.md §4.4: Response MUST include status: completed "
                                          "and an order with id, checkout_session_id, and permalink_url.",
    (COMPLETE, "'order' is a required property"): "rfc.agentic_checkout.md §4.4: Server MUST set session.status "
                                                   "to authentication_required when authentication (e.g., 3DS) "
                                                   "is required.",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("acp-site")
    site = start_site(data_dir, workers=2)
    try:
        shop_dir = data_dir / "shop"
        shop_dir.mkdir()
        for name, text in SHOP.items():
            (shop_dir / name).write_text(text)
        loaded = site.manage("load_ucp_flower_shop", str(shop_dir))
        assert loaded.returncode == 0, loaded.stderr
        config = json.loads(site.manage("agents_config", "export").stdout)
        config["acp"] = {"enabled": True, "versions": [VERSION], "intervention_types": ["3ds"]}
        imported = site.manage("agents_config", "import", "-", input=json.dumps(config))
        assert imported.returncode == 0, imported.stderr
        issued = site.manage("agents_platform_key", "Real HTTP platform")
        assert issued.returncode == 0, issued.stderr
        site.key = issued.stdout.strip()
        yield site
    finally:
        site.stop()


def headers(site, **extra):
    return {"Authorization": f"Bearer {site.key}", "API-Version": VERSION, "Idempotency-Key": str(uuid.uuid4()),
            "Request-Id": "req-real-http", **extra}


def test_a_whole_flow_over_real_http(site):
    discovery = requests.get(f"{site.url}/.well-known/acp.json", timeout=10).json()
    base = discovery["api_base_url"]
    created = requests.post(f"{base}/checkout_sessions", json=create_body(fulfillment_details=FULFILLMENT),
                            headers=headers(site), timeout=10)
    assert created.status_code == 201 and created.headers["Request-Id"] == "req-real-http"
    path = f"{base}/checkout_sessions/{created.json()['id']}"
    option = created.json()["fulfillment_options"][0]["id"]
    chosen = requests.post(path, json={"selected_fulfillment_options": [
        {"type": "shipping", "option_id": option, "item_ids": ["bouquet_roses"]}]}, headers=headers(site), timeout=10)
    assert chosen.json()["status"] == "ready_for_payment"
    key = str(uuid.uuid4())
    paid = requests.post(f"{path}/complete", json=pay_body(), headers=headers(site, **{"Idempotency-Key": key}),
                         timeout=10)
    again = requests.post(f"{path}/complete", json=pay_body(), headers=headers(site, **{"Idempotency-Key": key}),
                          timeout=10)
    assert paid.json()["status"] == "completed" and again.json() == paid.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    refused = requests.get(path, headers={"Authorization": "Bearer wrong", "API-Version": VERSION}, timeout=10)
    assert refused.status_code == 401 and refused.json()["type"] == "invalid_request"


def checkout_of(site):
    created = requests.post(f"{site.url}/checkout_sessions", json=create_body(fulfillment_details=FULFILLMENT),
                            headers=headers(site), timeout=10)
    assert created.status_code == 201, created.text
    return created.json()["id"]


def unexplained(label, group, case, response):
    """The failures of `group` that no known fault of the spec's document explains."""
    return [failure for failure in group.exceptions
            if not (any(operation == label and phrase in f"{failure.title} {failure.message}"
                        for operation, phrase in KNOWN_SPEC_FAULTS)
                    or (failure.title == "Schema-valid request rejected" and refused_for_the_shops_state(
                        label, case, response)))]


def refused_for_the_shops_state(label, case, response):
    """A body the spec's schemas accept (ours check it with the same), refused for what only the
    shop knows: an unknown item (the spec's own example error_400_invalid_item: "The item ID
    'invalid_item' does not exist."), stock, currency, handler, or a session already canceled
    (§4.5: "405 if already completed or canceled")."""
    body = case.body if isinstance(case.body, dict) else {}
    return (response.status_code in (400, 402, 405) and response.json()["type"] == "invalid_request"
            and not list(acp_shapes.schema_validator(REQUEST_SCHEMAS[label]).iter_errors(body)))


def test_schemathesis_with_the_specs_document_finds_nothing_the_spec_does_not_cause(site):
    schema = schemathesis.openapi.from_path(SPEC)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == 5
    tested = 0
    for operation, mode in [(operation, mode) for operation in operations for mode in GenerationMode]:
        path_parameters = {"checkout_session_id": checkout_of(site)} if "{" in operation.path else None
        strategy = operation.as_strategy(mode, path_parameters=path_parameters, headers={
            "API-Version": VERSION, "Content-Type": "application/json"})
        key = {"Authorization": f"Bearer {site.key}"}  # sent as the platform's own, not drawn

        @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck))
        @given(case=strategy)
        def check(case):
            nonlocal tested
            if "Idempotency-Key" in (case.headers or {}):
                case.headers["Idempotency-Key"] = str(uuid.uuid4())
            response = case.call(base_url=site.url, headers=key, timeout=10)
            tested += 1
            try:
                case.validate_response(response, headers=key)
            except FailureGroup as group:
                left = unexplained(f"{operation.method.upper()} {operation.path}", group, case, response)
                assert not left, [f"{f.title}: {f.message}" for f in left]

        check()
    assert tested == 5 * 2 * EXAMPLES
