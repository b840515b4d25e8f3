"""UCP checkout sessions in process: statuses, totals from the shop, payment outcomes,
idempotency and bad input (UCP's error shape, never a 500), and the business profile.

The site is the demo with the conformance suite's flower shop loaded by load_ucp_flower_shop
(from a copy of its CSV files written here).
"""
import json
import uuid
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from acme.agents import AcmeProvider
from agents_protocol.activity.recorder import calls
from agents_protocol.checkout.models import CheckoutLink, CheckoutSession, CommerceConfig, PaymentHandler
from agents_protocol.core.models import AgentSession, AuditConfig
from agents_protocol.core.provider import CallContext, Payment, PaymentInstrument, ShopProvider
from agents_protocol.documents.ucp_profile import SCHEMAS_DIR
from agents_protocol.signals import ucp_order_event
from cart.models import Order
from cart.payments import Customer
from cart.services import confirm_order
from catalog.models import Product
from tests.platform_server import PlatformServer

pytestmark = pytest.mark.django_db

FLOWER_SHOP = {
    "products.csv": "id,title,price,image_url\nbouquet_roses,Bouquet of Red Roses,3500,\n"
                    "pot_ceramic,Ceramic Pot,1500,\ngardenias,Gardenias,2000,\n",
    "inventory.csv": "product_id,quantity\nbouquet_roses,1000\npot_ceramic,5\ngardenias,0\n",
    "discounts.csv": "code,type,value,description\n10OFF,percentage,10,10% Off\nFIXED500,fixed_amount,500,$5.00 Off\n",
    "shipping_rates.csv": "id,country_code,service_level,price,title\nstd-ship,default,standard,500,Standard Shipping\n"
                          "exp-ship-us,US,express,1500,Express Shipping (US)\n"
                          "exp-ship-intl,default,express,2500,International Express\n",
    "promotions.csv": 'id,type,min_subtotal,eligible_item_ids,description\n'
                      'promo_2,free_shipping,,"[""bouquet_roses""]",Free Shipping on Rose Bouquets\n',
    "customers.csv": "id,name,email\ncust_1,John Doe,john.doe@example.com\n",
    "addresses.csv": "id,customer_id,street_address,city,state,postal_code,country\n"
                     "addr_1,cust_1,123 Main St,Springfield,IL,62704,US\n",
    "payment_instruments.csv": "id,type,brand,last_digits,token,handler_id\n"
                               "instr_1,card,Visa,1234,success_token,mock_payment_handler\n",
}
US_ADDRESS = {"id": "dest_us", "street_address": "1 Elm St", "address_locality": "Springfield",
              "address_region": "IL", "postal_code": "62704", "address_country": "US"}


# The platform UCP-Agent names: its profile is fetched (outbound/profiles.py) from 127.0.0.1.
PLATFORM = PlatformServer()
PROFILE_URL = PLATFORM.url("/profiles/platform.json")


@pytest.fixture(scope="module", autouse=True)
def platform():
    PLATFORM.answer("/profiles/platform.json", body={"ucp": {"version": "2026-01-11"}})
    with PLATFORM:
        yield PLATFORM


@pytest.fixture(autouse=True)
def platform_on_loopback(settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "OUTBOUND_ALLOWED_NETWORKS": ["127.0.0.1/32"]}


@pytest.fixture
def flower_shop(tmp_path):
    for name, text in FLOWER_SHOP.items():
        (tmp_path / name).write_text(text)
    call_command("load_ucp_flower_shop", str(tmp_path), stdout=StringIO())


@pytest.fixture
def order_events():
    received = []

    def receive(sender, checkout, event, **kwargs):
        received.append((checkout.public_id, event))

    ucp_order_event.connect(receive)
    yield received
    ucp_order_event.disconnect(receive)


def headers(key=None, **extra):
    return {"idempotency-key": key or str(uuid.uuid4()), "request-id": str(uuid.uuid4()),
            "UCP-Agent": f'profile="{PROFILE_URL}"; version="2026-01-11"', **extra}


def send(client, method, path, body=None, raw=None, **header_values):
    data = raw if raw is not None else (json.dumps(body) if body is not None else "")
    return getattr(client, method)(path, data=data, content_type="application/json", headers=headers(**header_values))


def create_payload(item_id="bouquet_roses", quantity=1, **extra):
    return {"currency": "USD", "line_items": [{"item": {"id": item_id, "title": "Anything"}, "quantity": quantity}],
            "payment": {"instruments": []}, **extra}


def shipping(option=None, destinations=(US_ADDRESS,)):
    method = {"type": "shipping", "destinations": list(destinations), "selected_destination_id": "dest_us"}
    if option:
        method["groups"] = [{"selected_option_id": option}]
    return {"methods": [method]}


def payment(token="success_token", **credential):
    return {"payment_data": {"id": "instr_1", "handler_id": "mock_payment_handler", "type": "card",
                             "credential": credential or {"type": "token", "token": token}}, "risk_signals": {}}


def total(answer, kind="total"):
    return next(t["amount"] for t in answer["totals"] if t["type"] == kind)


def assert_ucp_error(response, status, code):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code
    assert body["detail"] == body["messages"][0]["content"]
    assert body["messages"][0]["type"] == "error" and body["messages"][0]["code"] == code
    return body


def created(client, **payload):
    response = send(client, "post", "/checkout-sessions", create_payload(**payload))
    assert response.status_code == 201, response.content
    return response.json()


def test_nothing_is_served_until_admin_turns_ucp_on(client, flower_shop):
    CommerceConfig.objects.filter(pk=1).update(ucp_enabled=False)

    assert client.get("/.well-known/ucp").status_code == 404
    assert_ucp_error(send(client, "post", "/checkout-sessions", create_payload()), 404, "not_found")
    assert not CheckoutSession.objects.exists()


def test_profile_entries_validate_against_the_spec_schemas(client, flower_shop):
    profile = client.get("/.well-known/ucp").json()

    registry = Registry().with_resources(
        (json.loads(path.read_text())["$id"], Resource.from_contents(json.loads(path.read_text())))
        for path in SCHEMAS_DIR.glob("*.json") if "$id" in json.loads(path.read_text()))
    capability = {"$ref": "https://ucp.dev/schemas/capability.json#/$defs/business_schema"}
    handler = {"$ref": "https://ucp.dev/schemas/payment_handler.json#/$defs/business_schema"}
    for entry in profile["ucp"]["capabilities"]:
        Draft202012Validator(capability, registry=registry).validate(entry)
    for entry in profile["payment"]["handlers"]:
        Draft202012Validator(handler, registry=registry).validate(entry)
    assert {c["name"] for c in profile["ucp"]["capabilities"]} == {
        "dev.ucp.shopping.checkout", "dev.ucp.shopping.order", "dev.ucp.shopping.buyer_consent",
        "dev.ucp.shopping.fulfillment", "dev.ucp.shopping.discount"}
    assert profile["ucp"]["services"]["dev.ucp.shopping"]["rest"]["endpoint"] == "http://testserver"
    for url in [entry["schema"] for entry in profile["ucp"]["capabilities"]] + [
            h["config_schema"] for h in profile["payment"]["handlers"]]:
        assert client.get(url.removeprefix("http://testserver")).status_code == 200, url


def test_create_prices_the_lines_from_the_shop_in_a_session_of_its_own(client, flower_shop):
    answer = created(client, quantity=2)

    assert answer["status"] == "incomplete"  # no shipping chosen yet
    assert answer["line_items"][0]["item"] == {"id": "bouquet_roses", "title": "Bouquet of Red Roses", "price": 3500}
    assert total(answer, "subtotal") == total(answer) == 7000
    checkout = CheckoutSession.objects.get(public_id=answer["id"])
    assert AgentSession.objects.filter(pk=checkout.agent_session_id).exists()
    assert checkout.platform_profile_url == PROFILE_URL


def test_the_platforms_request_id_traces_the_call(client, flower_shop):
    request_id = str(uuid.uuid4())
    response = send(client, "post", "/checkout-sessions", create_payload(item_id="gardenias"), **{"request-id": request_id})

    assert response.status_code == 400 and response["X-Request-ID"] == request_id.replace("-", "")


def test_shipping_options_and_discounts_make_the_total(client, flower_shop):
    answer = created(client, item_id="pot_ceramic", fulfillment=shipping())
    options = answer["fulfillment"]["methods"][0]["groups"][0]["options"]
    assert [(o["id"], total(o)) for o in options] == [("std-ship", 500), ("exp-ship-us", 1500)]

    body = {**create_payload(item_id="pot_ceramic"), "id": answer["id"], "fulfillment": shipping("exp-ship-us"),
            "discounts": {"codes": ["10OFF", "UNKNOWN"]}}
    answer = send(client, "put", f"/checkout-sessions/{answer['id']}", body).json()

    assert answer["status"] == "ready_for_complete"
    assert [d["code"] for d in answer["discounts"]["applied"]] == ["10OFF"]
    assert (total(answer, "subtotal"), total(answer, "fulfillment"), total(answer, "discount")) == (1500, 1500, 150)
    assert total(answer) == 2850


def test_complete_with_the_test_token_makes_an_order(client, flower_shop, order_events):
    checkout_id = created(client, fulfillment=shipping("std-ship"))["id"]

    answer = send(client, "post", f"/checkout-sessions/{checkout_id}/complete", payment("success_token")).json()

    assert answer["status"] == "completed"
    assert Product.objects.get(public_id="bouquet_roses").stock == 999
    assert order_events == [(checkout_id, "order_created")]
    order = client.get(f"/orders/{answer['order']['id']}", headers=headers()).json()
    assert order["checkout_id"] == checkout_id
    assert order["fulfillment"]["expectations"][0]["description"] == "Standard Shipping (Free)"
    assert_ucp_error(send(client, "post", f"/checkout-sessions/{checkout_id}/complete", payment()), 409,
                     "checkout_closed")


def test_a_declined_payment_is_402_and_changes_nothing(client, flower_shop, order_events):
    checkout_id = created(client, fulfillment=shipping("std-ship"))["id"]

    assert_ucp_error(send(client, "post", f"/checkout-sessions/{checkout_id}/complete", payment("fail_token")), 402,
                     "payment_declined")

    assert CheckoutSession.objects.get(public_id=checkout_id).status == CheckoutSession.Status.READY
    assert Product.objects.get(public_id="bouquet_roses").stock == 1000
    assert order_events == []


def test_escalation_hands_the_buyer_the_checkout_page(client, flower_shop):
    checkout_id = created(client, fulfillment=shipping("std-ship"))["id"]

    answer = send(client, "post", f"/checkout-sessions/{checkout_id}/complete", payment("escalate_token")).json()

    assert answer["status"] == "requires_escalation"
    assert answer["continue_url"].startswith("http://testserver/checkout/")
    assert client.get(answer["continue_url"].removeprefix("http://testserver")).status_code == 200


def test_the_checkout_completes_once_the_human_paid_on_the_page(client, flower_shop, order_events):
    checkout_id = created(client, fulfillment=shipping("std-ship"))["id"]
    send(client, "post", f"/checkout-sessions/{checkout_id}/complete", payment("escalate_token"))
    order = Order.objects.get(number=CheckoutSession.objects.get(public_id=checkout_id).order_id)
    assert send(client, "get", f"/checkout-sessions/{checkout_id}").json()["status"] == "requires_escalation"

    confirm_order(order, Customer(name="Ada", email="ada@example.com", shipping_address="1 Elm St"))
    first = send(client, "get", f"/checkout-sessions/{checkout_id}").json()
    again = send(client, "get", f"/checkout-sessions/{checkout_id}").json()

    assert first["status"] == again["status"] == "completed"
    assert first["order"] == again["order"]
    assert order_events == [(checkout_id, "order_created")]


def test_the_base_provider_escalates_every_payment():
    instrument = PaymentInstrument(id="i", handler_id="h", credential={"token": "t"})
    payment_outcome = ShopProvider().pay(CallContext(session=None, origin=""), order_id="o", instrument=instrument,
                                         amount=1, currency="USD", buyer=None)
    assert payment_outcome.outcome == Payment.ESCALATE


def test_a_replayed_key_gets_the_same_answer_and_another_body_409(client, flower_shop):
    key = str(uuid.uuid4())
    first = send(client, "post", "/checkout-sessions", create_payload(), key=key)
    again = send(client, "post", "/checkout-sessions", create_payload(), key=key)

    assert (again.status_code, again.json()) == (first.status_code, first.json())
    assert CheckoutSession.objects.count() == 1
    assert_ucp_error(send(client, "post", "/checkout-sessions", create_payload(quantity=2), key=key), 409,
                     "idempotency_conflict")

    update = {**create_payload(quantity=3), "id": first.json()["id"]}
    path = f"/checkout-sessions/{first.json()['id']}"
    key = str(uuid.uuid4())
    assert send(client, "put", path, update, key=key).json() == send(client, "put", path, update, key=key).json()
    assert_ucp_error(send(client, "put", path, {**update, "line_items": create_payload(quantity=4)["line_items"]},
                          key=key), 409, "idempotency_conflict")


def test_stock_and_unknown_items_are_refused_with_their_reason(client, flower_shop):
    assert "Insufficient stock" in assert_ucp_error(
        send(client, "post", "/checkout-sessions", create_payload(item_id="gardenias")), 400, "insufficient_stock")["detail"]
    assert "not found" in assert_ucp_error(
        send(client, "post", "/checkout-sessions", create_payload(item_id="pink_wumpus")), 400, "invalid_params")["detail"]
    checkout_id = created(client, item_id="pot_ceramic")["id"]
    body = {**create_payload(item_id="pot_ceramic", quantity=6), "id": checkout_id}
    assert_ucp_error(send(client, "put", f"/checkout-sessions/{checkout_id}", body), 400, "insufficient_stock")
    assert CheckoutSession.objects.get(public_id=checkout_id).lines[0]["quantity"] == 1


@pytest.mark.parametrize("raw, path", [
    ('{"currency": "USD", "line_items": [', "$"),
    ("[1, 2]", "$"),
    (json.dumps({**create_payload(), "price_override": 1}), "$.price_override"),
    (json.dumps({**create_payload(), "line_items": {"item": {"id": "bouquet_roses"}}}), "$.line_items"),
    (json.dumps(create_payload(quantity="2")), "$.line_items[0].quantity"),
    (json.dumps({**create_payload(), "fulfillment": {"methods": [{"type": "pickup"}]}}), "$.fulfillment.methods[0].type"),
    ('{"buyer": ' * 1000 + "{}" + "}" * 1000, "$"),
    (json.dumps({**create_payload(), "currency": 840}), "$.currency"),
    (json.dumps({**create_payload(), "buyer": {"email": ["a@example.com"]}}), "$.buyer.email"),
    (json.dumps({**create_payload(), "buyer": {"consent": {"marketing": "yes"}}}), "$.buyer.consent"),
])
def test_bad_input_gets_ucps_error_shape_and_changes_nothing(client, flower_shop, raw, path):
    response = send(client, "post", "/checkout-sessions", raw=raw)

    assert response.status_code == 400, response.content
    body = response.json()
    assert body["messages"][0]["type"] == "error" and body["detail"]
    if path != "$":
        assert body["messages"][0]["path"] == path
    assert not CheckoutSession.objects.exists() and not AgentSession.objects.exists()


def test_a_body_past_the_limit_is_413_before_anything_runs(client, flower_shop):
    payload = create_payload()
    payload["buyer"] = {"note": "x" * 5_000_000}

    assert_ucp_error(send(client, "post", "/checkout-sessions", payload), 413, "payload_too_large")
    assert not CheckoutSession.objects.exists()


def test_another_checkouts_id_and_unknown_ids_are_refused(client, flower_shop):
    mine, other = created(client)["id"], created(client)["id"]

    body = {**create_payload(quantity=5), "id": other}
    assert_ucp_error(send(client, "put", f"/checkout-sessions/{mine}", body), 400, "invalid_params")
    assert_ucp_error(send(client, "get", "/checkout-sessions/cs_nothing"), 404, "not_found")
    assert_ucp_error(send(client, "get", "/orders/ord_nothing"), 404, "not_found")
    assert CheckoutSession.objects.get(public_id=other).lines[0]["quantity"] == 1


def test_a_newer_protocol_version_is_refused(client, flower_shop):
    response = client.post("/checkout-sessions", data=json.dumps(create_payload()), content_type="application/json",
                           headers={**headers(), "UCP-Agent": 'profile="https://p.example/"; version="2099-01-01"'})
    assert_ucp_error(response, 400, "version_unsupported")


def test_a_canceled_checkout_cannot_change(client, flower_shop):
    checkout_id = created(client, fulfillment=shipping("std-ship"))["id"]
    assert send(client, "post", f"/checkout-sessions/{checkout_id}/cancel").json()["status"] == "canceled"

    assert_ucp_error(send(client, "post", f"/checkout-sessions/{checkout_id}/cancel"), 409, "checkout_closed")
    assert_ucp_error(send(client, "post", f"/checkout-sessions/{checkout_id}/complete", payment()), 409,
                     "checkout_closed")


def test_an_expired_checkout_is_read_but_not_changed(client, flower_shop):
    answer = created(client, fulfillment=shipping("std-ship"))
    assert answer["expires_at"].endswith("Z")
    checkout = CheckoutSession.objects.get(public_id=answer["id"])
    AgentSession.objects.filter(pk=checkout.agent_session_id).update(expires_at=timezone.now())

    assert send(client, "get", f"/checkout-sessions/{answer['id']}").status_code == 200
    assert_ucp_error(send(client, "post", f"/checkout-sessions/{answer['id']}/complete", payment()), 409,
                     "checkout_closed")
    assert Product.objects.get(public_id="bouquet_roses").stock == 1000


def test_an_order_update_of_the_wrong_shape_is_422(client, flower_shop):
    checkout_id = created(client, fulfillment=shipping("std-ship"))["id"]
    order_id = send(client, "post", f"/checkout-sessions/{checkout_id}/complete", payment()).json()["order"]["id"]
    adjustment = {"id": "adj_1", "type": "refund", "occurred_at": "2026-01-11T10:00:00+00:00", "amount": 500}

    assert_ucp_error(send(client, "put", f"/orders/{order_id}", {"adjustments": [{**adjustment, "status": "nope"}]}),
                     422, "invalid_order_update")
    answer = send(client, "put", f"/orders/{order_id}", {"adjustments": [{**adjustment, "status": "pending"}]}).json()
    assert answer["adjustments"][0]["amount"] == 500


def test_ucp_is_configured_as_code(flower_shop, tmp_path):
    exported = StringIO()
    call_command("agents_config", "export", stdout=exported)
    config = json.loads(exported.getvalue())
    assert config["ucp"]["enabled"] is True
    assert [h["handler_id"] for h in config["ucp"]["payment_handlers"]] == ["mock_payment_handler", "google_pay",
                                                                           "shop_pay"]

    def imported(data):
        path = tmp_path / "config.json"
        path.write_text(json.dumps(data))
        call_command("agents_config", "import", str(path), stdout=StringIO())

    imported({key: value for key, value in config.items() if key != "ucp"})
    assert CommerceConfig.load().ucp_enabled and PaymentHandler.objects.count() == 3
    imported({**config, "ucp": {"enabled": False, "payment_handlers": []}})
    assert not CommerceConfig.load().ucp_enabled and not PaymentHandler.objects.exists()


def test_the_links_admin_lists_are_in_every_checkout_answer(client, flower_shop, tmp_path):
    assert created(client)["links"] == []
    exported = StringIO()
    call_command("agents_config", "export", stdout=exported)
    config = json.loads(exported.getvalue())
    path = tmp_path / "config.json"

    def imported(links):
        path.write_text(json.dumps({**config, "ucp": {**config["ucp"], "links": links}}))
        call_command("agents_config", "import", str(path), stdout=StringIO())

    imported([{"type": "terms_of_service", "url": "/terms/", "title": "Terms of sale"},
              {"type": "privacy_policy", "url": "https://shop.example/privacy"}])

    assert created(client)["links"] == [
        {"type": "terms_of_service", "url": "http://testserver/terms/", "title": "Terms of sale"},
        {"type": "privacy_policy", "url": "https://shop.example/privacy"}]
    with pytest.raises(CommandError, match="url"):
        imported([{"type": "faq", "url": "javascript:alert(1)"}])
    assert CheckoutLink.objects.count() == 2


class CartOnlyProvider(AcmeProvider):
    """The demo's cart with the base provider's checkout defaults: no shipping, no discounts, no pay()."""

    shipping_options = ShopProvider.shipping_options
    discounts = ShopProvider.discounts
    pay = ShopProvider.pay


def test_a_shop_on_the_base_provider_hands_the_buyer_its_checkout_page(client, flower_shop, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "PROVIDER": f"{__name__}.CartOnlyProvider"}

    names = {c["name"] for c in client.get("/.well-known/ucp").json()["ucp"]["capabilities"]}
    assert names == {"dev.ucp.shopping.checkout", "dev.ucp.shopping.order", "dev.ucp.shopping.buyer_consent"}
    answer = created(client, discounts={"codes": ["10OFF"]})
    assert answer["status"] == "ready_for_complete" and "fulfillment" not in answer and total(answer) == 3500

    answer = send(client, "post", f"/checkout-sessions/{answer['id']}/complete", payment()).json()

    assert answer["status"] == "requires_escalation" and "order" not in answer
    assert answer["continue_url"].startswith("http://testserver/checkout/")
    assert Product.objects.get(public_id="bouquet_roses").stock == 1000  # the human has not paid yet


def test_ucp_calls_are_audited_and_counted_by_operation(client, flower_shop):
    AuditConfig.objects.update_or_create(pk=1, defaults={"enabled": True})
    calls.take()
    checkout_id = created(client, fulfillment=shipping("std-ship"))["id"]
    send(client, "get", f"/checkout-sessions/{checkout_id}")
    send(client, "post", f"/checkout-sessions/{checkout_id}/complete", payment())

    checkout = CheckoutSession.objects.get(public_id=checkout_id)
    assert list(checkout.agent_session.audit_events.order_by("seq").values_list("capability", flat=True)) == [
        "session.create", "ucp.checkout.get", "ucp.checkout.complete"]
    assert [call[1] for call in calls.take()] == ["ucp.checkout.create", "ucp.checkout.get", "ucp.checkout.complete"]
