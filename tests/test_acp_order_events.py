"""ACP order events (transports/acp_events.py): the WebhookEvent of a platform's paid checkout and
of its shipping, sent to the webhook set on the platform, valid against the spec's openapi.agentic_checkout_webhook.yaml (its Order from
openapi.agentic_checkout.yaml)."""
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012 as DRAFT_2020_12

from django.core.exceptions import ValidationError
from django.db import transaction
from django_tasks_db.models import DBTaskResult

from agents_protocol.checkout import services
from agents_protocol.checkout.models import CheckoutSession
from agents_protocol.outbound.acp_webhooks import deliver_acp_order_event
from agents_protocol.platforms.models import Platform
from agents_protocol.transports.acp_events import webhook_event
from tests.acp_support import (
    FULFILLMENT,
    Acp,
    create_body,
    new_platform,
    pay_body,
    platform_key,  # noqa: F401 (fixture)
    shop,  # noqa: F401 (fixture)
)
from tests.platform_server import PlatformServer
from tests.test_acp_webhooks import verified

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
WEBHOOK_DOCUMENT = ROOT / "tests/data/acp/openapi.agentic_checkout_webhook.json"
SPEC = "https://spec.example/2026-04-17/openapi/"  # where the two documents refer to each other
CHECKOUT_DOCUMENT = ROOT / "tests/data/acp/openapi.agentic_checkout.json"


def webhook_event_validator():
    """WebhookEvent, its `./openapi.agentic_checkout.yaml` reference read from the checkout document."""
    webhooks = json.loads(WEBHOOK_DOCUMENT.read_text())
    checkout = json.loads(CHECKOUT_DOCUMENT.read_text())
    registry = Registry().with_resources([
        (f"{SPEC}openapi.agentic_checkout_webhook.yaml", Resource.from_contents(webhooks, default_specification=DRAFT_2020_12)),
        (f"{SPEC}openapi.agentic_checkout.yaml", Resource.from_contents(checkout,
                                                                         default_specification=DRAFT_2020_12)),
    ])
    return Draft202012Validator({"$ref": f"{SPEC}openapi.agentic_checkout_webhook.yaml#/components/schemas/WebhookEvent"}, registry=registry,
                                format_checker=Draft202012Validator.FORMAT_CHECKER)


def assert_valid(event):
    errors = [f"{list(error.absolute_path)}: {error.message}" for error in webhook_event_validator().iter_errors(event)]
    assert not errors, errors


def paid_checkout(client, key):
    acp = Acp(client, key)
    checkout = acp.create(create_body("bouquet_roses", "bouquet_roses", "pot_ceramic", fulfillment_details=FULFILLMENT))
    path = f"/checkout_sessions/{checkout['id']}"
    acp.post(path, {"selected_fulfillment_options": [{"type": "shipping", "option_id": "std-ship",
                                                      "item_ids": ["bouquet_roses", "pot_ceramic"]}]})
    assert acp.post(f"{path}/complete", pay_body("success_token")).json()["status"] == "completed"
    return CheckoutSession.objects.get(public_id=checkout["id"])


def test_a_paid_checkout_is_an_order_create_with_the_full_order(client, platform_key):
    checkout = paid_checkout(client, platform_key)

    event = webhook_event(checkout, "order_created")

    assert_valid(event)
    order = event["data"]
    assert event["type"] == "order_create"
    assert (order["id"], order["checkout_session_id"], order["status"]) == (
        checkout.order_key, checkout.public_id, "confirmed")
    assert order["permalink_url"].startswith("http://testserver/")
    assert {(line["product_id"], line["quantity"]["ordered"], line["unit_price"], line["subtotal"])
            for line in order["line_items"]} == {("bouquet_roses", 2, 3500, 7000), ("pot_ceramic", 1, 1500, 1500)}
    assert {total["type"]: total["amount"] for total in order["totals"]}["total"] == 9000
    assert order["fulfillments"][0]["status"] == "pending"


def test_a_shipped_order_is_an_order_update_with_fulfilled_lines(client, platform_key):
    checkout = paid_checkout(client, platform_key)
    shipped = services.add_fulfillment_event(checkout, "shipped")

    event = webhook_event(checkout, "order_shipped")

    assert_valid(event)
    order = event["data"]
    assert (event["type"], order["status"]) == ("order_update", "shipped")
    assert all(line["quantity"]["fulfilled"] == line["quantity"]["current"] for line in order["line_items"])
    assert {line["status"] for line in order["line_items"]} == {"fulfilled"}
    [fulfillment] = order["fulfillments"]
    assert fulfillment["status"] == "shipped" and fulfillment["events"][0]["id"] == shipped["id"]


def test_the_validator_refuses_an_order_without_its_required_fields():
    with pytest.raises(AssertionError, match="permalink_url"):
        assert_valid({"type": "order_create", "data": {"type": "order", "id": "ord_1", "checkout_session_id": "cs_1",
                                                       "status": "created"}})


HOOK_PATH = "/agentic_checkout/webhooks/order_events"
SECRET = "whsec_platform_7c1d"


@pytest.fixture
def hooked_platform(shop, settings):
    """(PlatformServer, API key) of a platform whose webhook is a server on 127.0.0.1."""
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "OUTBOUND_ALLOWED_NETWORKS": ["127.0.0.0/8"],
                                "OUTBOUND_TIMEOUT_SECONDS": 1}
    with PlatformServer() as server:
        server.answer(HOOK_PATH, body={"received": True})
        _, key = new_platform(name="Hooked", webhook_url=server.url(HOOK_PATH), webhook_secret=SECRET)
        yield server, key


def queued():
    return list(DBTaskResult.objects.filter(task_path=deliver_acp_order_event.module_path).order_by("enqueued_at"))


def run(task_row):
    arguments = task_row.args_kwargs
    return deliver_acp_order_event.call(*arguments["args"], **arguments["kwargs"])


def test_the_platforms_webhook_gets_each_order_event_signed(client, hooked_platform):
    server, key = hooked_platform
    checkout = paid_checkout(client, key)
    assert len(queued()) == 1  # enqueued by the completion, in its transaction
    services.add_fulfillment_event(checkout, "shipped")

    for row in queued():
        assert run(row)["delivered"] is True
    first, second = server.requests
    assert [json.loads(first.body)["type"], json.loads(second.body)["type"]] == ["order_create", "order_update"]
    for arrived in (first, second):
        assert verified(arrived, SECRET)
        assert_valid(json.loads(arrived.body))
    assert json.loads(second.body)["data"]["status"] == "shipped"


def test_a_rolled_back_order_change_sends_nothing(client, hooked_platform):
    server, key = hooked_platform
    checkout = paid_checkout(client, key)
    before = len(queued())

    with pytest.raises(RuntimeError), transaction.atomic():
        services.add_fulfillment_event(checkout, "shipped")
        raise RuntimeError("the shipment was not recorded")

    assert len(queued()) == before == 1


def test_a_platform_without_a_webhook_gets_no_events(client, platform_key):
    paid_checkout(client, platform_key)

    assert queued() == []


@pytest.mark.parametrize(("url", "secret", "field"), [
    ("https://platform.example/hooks", "", "webhook_secret"),
    ("http://platform.example/hooks", SECRET, "webhook_url"),
])
def test_admin_takes_an_https_webhook_with_its_secret(url, secret, field):
    platform = Platform(name="P", webhook_url=url, webhook_secret=secret)

    with pytest.raises(ValidationError) as refused:
        platform.full_clean()
    assert list(refused.value.message_dict) == [field]
    Platform(name="P", webhook_url="https://platform.example/hooks", webhook_secret=SECRET).full_clean()
