"""Bad input to ACP: malformed JSON, deep nesting, huge bodies, wrong types, unknown fields,
other platforms' ids, replayed keys with changed bodies, expired timestamps, a body's
authentication result on an unchallenged session. Always ACP's flat error with the right
status, never a 500 or HTML, and nothing changed."""
import json

import pytest

from agents_protocol.checkout.models import CheckoutSession
from agents_protocol.core.models import AgentSession
from tests.acp_support import (
    Acp,
    create_body,
    new_platform,
    pay_body,
    platform_key,  # noqa: F401 (fixture)
    shop,  # noqa: F401 (fixture)
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def acp(client, platform_key):
    return Acp(client, platform_key)


def assert_acp_error(response, status, code=None, param=None):
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) <= {"type", "code", "message", "param", "supported_versions"}
    assert body["type"] == "invalid_request" and body["message"]
    if code:
        assert body["code"] == code
    if param:
        assert body.get("param") == param
    return body


@pytest.mark.parametrize("raw, code, param", [
    ('{"currency": "usd", "line_items": [', "invalid_json", None),
    ("[1, 2]", "invalid_params", "$"),
    ('"a string"', "invalid_params", "$"),
    (json.dumps({**create_body(), "price_override": 1}), "invalid_params", "$"),
    (json.dumps({**create_body(), "line_items": {"id": "bouquet_roses"}}), "invalid_params", "$.line_items"),
    (json.dumps({**create_body(), "line_items": []}), "invalid_params", "$.line_items"),
    (json.dumps({**create_body(), "line_items": [{"id": 7}]}), "invalid_params", "$.line_items[0].id"),
    (json.dumps({**create_body(), "buyer": {"email": "not-an-email"}}), "invalid_params", "$.buyer.email"),
    (json.dumps({key: value for key, value in create_body().items() if key != "currency"}), "invalid_params", "$"),
    (json.dumps({**create_body(), "fulfillment_details": {"address": {"line_one": 5}}}), "invalid_params",
     "$.fulfillment_details.address"),
    ('{"currency": ' * 1000 + "1" + "}" * 1000, None, None),
    ('{"currency": NaN}', None, None),
    (json.dumps(create_body(metadata={"n": [2**60]})), "invalid_params", "$.metadata.n[0]"),
    (json.dumps(create_body(metadata={"n": 1})).replace('"n": 1', '"n": 1e400'), "invalid_params", "$.metadata.n"),
])
def test_malformed_bodies_are_400_and_change_nothing(acp, raw, code, param):
    assert_acp_error(acp.post("/checkout_sessions", raw=raw), 400, code, param)
    assert not CheckoutSession.objects.exists() and not AgentSession.objects.exists()


def test_unknown_or_out_of_stock_items_are_400_naming_the_reason(acp):
    assert_acp_error(acp.post("/checkout_sessions", create_body("pink_wumpus")), 400, "invalid_params")
    assert_acp_error(acp.post("/checkout_sessions", create_body("gardenias")), 400, "insufficient_stock")
    assert not CheckoutSession.objects.exists()


def test_a_huge_body_is_413_before_anything_runs(acp):
    body = create_body(metadata={"note": "x" * 200_000})
    assert_acp_error(acp.post("/checkout_sessions", body), 413)
    assert not CheckoutSession.objects.exists()


def test_a_replayed_key_with_a_changed_body_is_422_and_changes_nothing(acp):
    checkout = acp.create()
    path = f"/checkout_sessions/{checkout['id']}"
    assert acp.post(path, {"line_items": [{"id": "pot_ceramic"}]}, idempotency_key="k").status_code == 200
    assert_acp_error(acp.post(path, {"line_items": [{"id": "bouquet_roses"}]}, idempotency_key="k"), 422,
                     "idempotency_conflict")
    assert CheckoutSession.objects.get(public_id=checkout["id"]).lines[0]["item_id"] == "pot_ceramic"
    # 1 and 1.0 are one body (§6.2), keys in any order too
    first = json.dumps(create_body(metadata={"n": 1.0}))
    assert acp.post("/checkout_sessions", raw=first, idempotency_key="k2").status_code == 201
    reordered = json.dumps(dict(reversed(create_body(metadata={"n": 1}).items())))
    assert acp.post("/checkout_sessions", raw=reordered, idempotency_key="k2")["Idempotent-Replayed"] == "true"
    assert CheckoutSession.objects.count() == 2


def test_a_malformed_idempotency_key_is_400(acp):
    assert_acp_error(acp.post("/checkout_sessions", create_body(), idempotency_key="a,b"), 400,
                     "invalid_idempotency_key")
    assert not CheckoutSession.objects.exists()


def test_wrong_ids_methods_and_paths(acp, client):
    checkout = acp.create()
    assert_acp_error(acp.get("/checkout_sessions/cs_nothing"), 404, "not_found")
    assert_acp_error(acp.post(f"/checkout_sessions/{checkout['id']}/refund"), 404, "not_found")
    deleted = client.delete(f"/checkout_sessions/{checkout['id']}", headers={"Authorization": f"Bearer {acp.key}"})
    assert_acp_error(deleted, 405, "method_not_allowed")
    other = Acp(client, new_platform(name="Other")[1])
    assert_acp_error(other.post(f"/checkout_sessions/{checkout['id']}/cancel"), 404, "not_found")
    assert CheckoutSession.objects.get(public_id=checkout["id"]).status == CheckoutSession.Status.OPEN


def test_payment_data_of_the_wrong_shape_or_handler_is_400_and_pays_nothing(acp):
    checkout = acp.create()
    path = f"/checkout_sessions/{checkout['id']}/complete"
    assert_acp_error(acp.post(path, {"payment_data": {"purchase_order_number": "PO-1"}}), 400, "invalid_params",
                     "$.payment_data")
    assert_acp_error(acp.post(path, {"payment_data": {"handler_id": "x", "instrument": {"type": "card"}}}), 400,
                     "invalid_params")
    assert_acp_error(acp.post(path, pay_body(handler_id="no_such_handler")), 400, "invalid_params",
                     "$.payment_data.handler_id")
    assert_acp_error(acp.post(path, pay_body()), 400, "checkout_incomplete")  # no address and shipping yet
    stored = CheckoutSession.objects.get(public_id=checkout["id"])
    assert stored.status == CheckoutSession.Status.OPEN and not stored.order_id


def test_no_payment_credential_reaches_the_audit_trail(acp):
    from agents_protocol.core.models import AuditEvent

    checkout = acp.create()
    acp.post(f"/checkout_sessions/{checkout['id']}/complete", pay_body("success_token"))
    trail = json.dumps(list(AuditEvent.objects.values_list("params", flat=True)))
    assert "success_token" not in trail and AuditEvent.objects.exists()


def test_a_timestamp_that_is_no_rfc_3339_time_is_400_signed_or_not(acp):
    assert_acp_error(acp.post("/checkout_sessions", create_body(), Timestamp="yesterday"), 400, "invalid_request")
    assert acp.post("/checkout_sessions", create_body(), Timestamp="2026-04-17T10:30:00Z").status_code == 201
    assert CheckoutSession.objects.count() == 1
