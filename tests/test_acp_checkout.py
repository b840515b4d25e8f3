"""ACP checkout sessions in process: the flow on the checkout core UCP uses (statuses, totals in
minor units, shipping options, payment outcomes, 3-D Secure, the redirect to the shop's page),
API-Version, Idempotency-Key (§6), Request-Id, and discovery."""
import pytest

from agents_protocol.activity.recorder import calls
from agents_protocol.checkout.models import CheckoutLink, CheckoutSession, CommerceConfig
from agents_protocol.core.models import AgentSession, AuditConfig
from tests.acp_support import (
    ADDRESS,
    AUTHENTICATED,
    FULFILLMENT,
    VERSION,
    Acp,
    create_body,
    pay_body,
    platform_key,  # noqa: F401 (fixture)
    shop,  # noqa: F401 (fixture)
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def acp(client, platform_key):
    return Acp(client, platform_key)


def ready(acp, *item_ids):
    """A checkout with an address and the cheapest shipping option chosen."""
    checkout = acp.create(create_body(*item_ids, fulfillment_details=FULFILLMENT))
    option = checkout["fulfillment_options"][0]["id"]
    answer = acp.post(f"/checkout_sessions/{checkout['id']}",
                      {"selected_fulfillment_options": [{"type": "shipping", "option_id": option,
                                                         "item_ids": [checkout["line_items"][0]["item"]["id"]]}]})
    assert answer.status_code == 200, answer.content
    return answer.json()


def amount(answer, kind):
    return next(t["amount"] for t in answer["totals"] if t["type"] == kind)


def test_a_checkout_goes_from_items_to_an_address_to_shipping_to_a_paid_order(acp):
    checkout = acp.create(create_body("bouquet_roses", "bouquet_roses", "pot_ceramic"))
    assert checkout["status"] == "not_ready_for_payment"
    assert checkout["protocol"] == {"version": VERSION} and checkout["currency"] == "usd"
    assert {(line["item"]["id"], line["quantity"], line["unit_amount"]) for line in checkout["line_items"]} == {
        ("bouquet_roses", 2, 3500), ("pot_ceramic", 1, 1500)}
    assert amount(checkout, "total") == 8500
    assert checkout["messages"][0]["code"] == "missing" and checkout["messages"][0]["param"] == "$.fulfillment_details"
    assert [h["id"] for h in checkout["capabilities"]["payment"]["handlers"]] == [
        "mock_payment_handler", "google_pay", "shop_pay"]

    path = f"/checkout_sessions/{checkout['id']}"
    with_address = acp.post(path, {"fulfillment_details": FULFILLMENT}).json()
    assert with_address["fulfillment_details"]["address"] == ADDRESS
    assert {o["id"]: o["totals"][0]["amount"] for o in with_address["fulfillment_options"]} == {
        "std-ship": 500, "exp-ship-us": 1500}
    assert with_address["status"] == "not_ready_for_payment"

    chosen = acp.post(path, {"selected_fulfillment_options": [
        {"type": "shipping", "option_id": "exp-ship-us", "item_ids": ["bouquet_roses", "pot_ceramic"]}]}).json()
    assert chosen["status"] == "ready_for_payment" and chosen["messages"] == []
    assert amount(chosen, "fulfillment") == 1500 and amount(chosen, "total") == 10000

    paid = acp.post(f"{path}/complete", pay_body("success_token"))
    assert paid.status_code == 200, paid.content
    answer = paid.json()
    assert answer["status"] == "completed"
    assert answer["order"]["checkout_session_id"] == checkout["id"] and answer["order"]["id"].startswith("ord_")
    assert acp.get(path).json()["status"] == "completed"
    stored = CheckoutSession.objects.get(public_id=checkout["id"])
    assert stored.platform.name == "Test platform" and stored.payment_reference


def test_a_declined_token_is_the_error_shape_and_the_checkout_stays_payable(acp):
    checkout = ready(acp)
    path = f"/checkout_sessions/{checkout['id']}"
    declined = acp.post(f"{path}/complete", pay_body("fail_token"))
    assert declined.status_code == 402
    assert declined.json()["type"] == "invalid_request" and declined.json()["code"] == "payment_declined"
    assert acp.get(path).json()["status"] == "ready_for_payment"
    assert acp.post(f"{path}/complete", pay_body("success_token")).json()["status"] == "completed"


def test_3ds_asks_for_authentication_then_completes_with_its_result(acp):
    checkout = ready(acp)
    path = f"/checkout_sessions/{checkout['id']}"
    challenged = acp.post(f"{path}/complete", pay_body("3ds_token")).json()
    assert challenged["status"] == "authentication_required"
    assert challenged["authentication_metadata"]["directory_server"] == "visa"

    without = acp.post(f"{path}/complete", pay_body("3ds_token"))
    assert without.status_code == 400
    assert without.json() == {"type": "invalid_request", "code": "requires_3ds", "param": "$.authentication_result",
                              "message": without.json()["message"]}

    denied = acp.post(f"{path}/complete", pay_body("3ds_token", authentication_result={
        "outcome": "denied", "outcome_details": {**AUTHENTICATED["outcome_details"]}}))
    assert denied.status_code == 402 and acp.get(path).json()["status"] == "authentication_required"

    done = acp.post(f"{path}/complete", pay_body("3ds_token", authentication_result=AUTHENTICATED)).json()
    assert done["status"] == "completed" and "authentication_metadata" not in done


def test_another_handler_redirects_the_buyer_to_the_shops_checkout_page(acp):
    checkout = ready(acp)
    answer = acp.post(f"/checkout_sessions/{checkout['id']}/complete", pay_body(handler_id="google_pay")).json()
    assert answer["status"] == "requires_escalation"
    assert answer["continue_url"].startswith("http://testserver/") and "order" not in answer
    assert acp.client.get(answer["continue_url"]).status_code == 200


def test_cancel_once_then_405(acp):
    checkout = acp.create()
    path = f"/checkout_sessions/{checkout['id']}/cancel"
    canceled = acp.post(path, {"intent_trace": {"reason_code": "price_sensitivity"}}).json()
    assert canceled["status"] == "canceled" and canceled["messages"][0]["type"] == "info"
    again = acp.post(path)
    assert again.status_code == 405 and again.json()["type"] == "invalid_request"


def test_api_version_missing_or_unsupported_is_400_with_the_supported_versions(acp):
    missing = acp.post("/checkout_sessions", create_body(), **{"API-Version": ""})
    assert missing.status_code == 400
    assert missing.json()["code"] == "missing_api_version" and missing.json()["supported_versions"] == [VERSION]
    old = acp.post("/checkout_sessions", create_body(), **{"API-Version": "2025-09-29"})
    assert old.status_code == 400 and old.json()["code"] == "unsupported_api_version"
    assert not CheckoutSession.objects.exists()


def test_idempotency_key_is_required_replayed_and_refused_for_another_body(acp):
    missing = acp.post("/checkout_sessions", create_body(), idempotency_key=False)
    assert missing.status_code == 400 and missing.json()["code"] == "idempotency_key_required"

    first = acp.post("/checkout_sessions", create_body(), idempotency_key="key-1", **{"Request-Id": "req-1"})
    again = acp.post("/checkout_sessions", create_body(), idempotency_key="key-1", **{"Request-Id": "req-2"})
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert (again["Idempotency-Key"], again["Request-Id"]) == ("key-1", "req-2")
    assert CheckoutSession.objects.count() == 1

    changed = acp.post("/checkout_sessions", create_body("pot_ceramic"), idempotency_key="key-1")
    assert changed.status_code == 422 and changed.json()["code"] == "idempotency_conflict"
    # the same key on another path is another request (§6.1: scoped to identity and path)
    other_path = acp.post(f"/checkout_sessions/{first.json()['id']}/cancel", {}, idempotency_key="key-1")
    assert other_path.status_code == 200
    assert CheckoutSession.objects.count() == 1


def test_a_5xx_is_not_kept_for_the_key(acp, monkeypatch):
    from agents_protocol.checkout import services

    def broken(*args, **kwargs):
        raise RuntimeError("the shop broke")

    monkeypatch.setattr(services, "open_checkout", broken)
    failed = acp.post("/checkout_sessions", create_body(), idempotency_key="key-5xx")
    assert failed.status_code == 500 and failed.json()["type"] == "processing_error"
    monkeypatch.undo()
    assert acp.post("/checkout_sessions", create_body(), idempotency_key="key-5xx").status_code == 201


def test_each_checkout_is_an_audited_agent_session_of_its_own(acp):
    first, second = acp.create(), acp.create()
    sessions = AgentSession.objects.filter(checkout__public_id__in=[first["id"], second["id"]])
    assert sessions.count() == 2 and {s.purpose for s in sessions} == {"ACP checkout session"}


def test_acp_calls_are_audited_and_counted_by_operation(acp):
    AuditConfig.objects.update_or_create(pk=1, defaults={"enabled": True})
    calls.take()
    checkout = ready(acp)
    path = f"/checkout_sessions/{checkout['id']}"
    acp.get(path)
    acp.post(f"{path}/complete", pay_body())
    trail = CheckoutSession.objects.get(public_id=checkout["id"]).agent_session.audit_events.order_by("seq")
    assert list(trail.values_list("capability", flat=True)) == [
        "session.create", "acp.checkout.update", "acp.checkout.get", "acp.checkout.complete"]
    assert [call[1] for call in calls.take()] == [
        "acp.checkout.create", "acp.checkout.update", "acp.checkout.get", "acp.checkout.complete"]


def test_discovery_follows_the_admin_switch_and_is_listed_in_llms_txt(client, shop):
    document = client.get("/.well-known/acp.json")
    assert document.status_code == 200 and "max-age=3600" in document["Cache-Control"]
    body = document.json()
    assert body["protocol"] == {"name": "acp", "version": VERSION, "supported_versions": [VERSION]}
    assert body["api_base_url"] == "http://testserver" and body["transports"] == ["rest"]
    assert body["capabilities"]["services"] == ["checkout"]
    assert body["capabilities"]["intervention_types"] == ["3ds"]
    assert "/.well-known/acp.json" in client.get("/llms.txt").content.decode()

    commerce = CommerceConfig.load()
    commerce.acp_enabled = False
    commerce.save()
    assert client.get("/.well-known/acp.json").status_code == 404
    assert "/.well-known/acp.json" not in client.get("/llms.txt").content.decode()


def test_the_checkout_links_admin_lists_in_acps_link_types(acp):
    CheckoutLink.objects.create(type="terms_of_service", url="/terms/", position=0)
    CheckoutLink.objects.create(type="privacy_policy", url="https://example.com/privacy", title="Privacy", position=1)
    CheckoutLink.objects.create(type="loyalty_program", url="/loyalty/", position=2)  # no ACP type: left out
    assert acp.create()["links"] == [
        {"type": "terms_of_use", "url": "http://testserver/terms/"},
        {"type": "privacy_policy", "url": "https://example.com/privacy", "title": "Privacy"}]


def test_the_interventions_answered_are_those_both_sides_support(acp):
    both = acp.create(create_body(capabilities={"interventions": {"supported": ["3ds", "biometric"]}}))
    assert both["capabilities"]["interventions"]["supported"] == ["3ds"]
    path = f"/checkout_sessions/{both['id']}"
    assert acp.get(path).json()["capabilities"]["interventions"]["supported"] == ["3ds"]
    none = acp.create(create_body(capabilities={}))
    assert none["capabilities"]["interventions"] == {"supported": [], "required": [], "enforcement": "conditional"}
