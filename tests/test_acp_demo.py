"""The demo as the place to test a UCP or ACP agent against: after `make demo`'s commands, a UCP
platform buys a demo piece with the test handler's token, a key from /developers/ does over ACP,
3-D Secure included; staff's own configuration stays."""
import json
import uuid

import pytest
from django.core.management import call_command

from agents_protocol.checkout.models import PaymentHandler
from catalog.models import Product
from tests.acp_support import AUTHENTICATED, FULFILLMENT, Acp, create_body, pay_body

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(db):
    call_command("load_demo_catalog", stdout=open("/dev/null", "w"))
    call_command("open_demo_commerce", stdout=open("/dev/null", "w"))


def ucp(client, path, body):
    headers = {"UCP-Agent": 'profile="demo-agent"; version="2026-01-11"', "idempotency-key": str(uuid.uuid4()),
               "request-id": str(uuid.uuid4())}
    return client.post(path, data=json.dumps(body), content_type="application/json", headers=headers)


def test_a_ucp_platform_buys_on_the_demo_with_the_test_token(client, demo):
    assert client.get("/.well-known/ucp").status_code == 200
    piece = Product.objects.filter(is_active=True, stock__gt=2, variant_of=None, variants=None).first()
    address = {"id": "home", "street_address": "1 Elm St", "address_locality": "Springfield", "address_region": "IL",
               "postal_code": "62704", "address_country": "US"}
    fulfillment = {"methods": [{"type": "shipping", "destinations": [address], "selected_destination_id": "home",
                                "groups": [{"selected_option_id": "standard"}]}]}
    created = ucp(client, "/checkout-sessions", {"line_items": [{"item": {"id": piece.public_id}, "quantity": 1}],
                                                 "fulfillment": fulfillment})
    assert created.status_code == 201, created.content
    credential = {"type": "token", "token": "success_token"}
    done = ucp(client, f"/checkout-sessions/{created.json()['id']}/complete", {"payment_data": {
        "id": "instr_1", "handler_id": "mock_payment_handler", "type": "card", "credential": credential}})
    assert done.status_code == 200 and done.json()["status"] == "completed", done.content


def developer_key(client):
    page = client.post("/developers/", {"name": "demo agent"}).content.decode()
    return page.split('aria-label="Your test-mode API key"')[0].rsplit('value="', 1)[1].split('"')[0]


def test_a_developer_buys_on_the_demo_with_a_key_from_the_page(client, demo):
    piece = Product.objects.filter(is_active=True, stock__gt=2, variant_of=None, variants=None).first()
    acp = Acp(client, developer_key(client))
    checkout = acp.create(create_body(piece.public_id, fulfillment_details=FULFILLMENT))
    path = f"/checkout_sessions/{checkout['id']}"
    acp.post(path, {"selected_fulfillment_options": [{"type": "shipping", "option_id": "standard",
                                                      "item_ids": [piece.public_id]}]})
    assert acp.post(f"{path}/complete", pay_body("3ds_token")).json()["status"] == "authentication_required"
    done = acp.post(f"{path}/complete", pay_body("3ds_token", authentication_result=AUTHENTICATED)).json()
    assert done["status"] == "completed"


def test_staffs_handlers_stay(demo):
    PaymentHandler.objects.all().delete()
    PaymentHandler.objects.create(handler_id="shop_own", name="com.shop.own", spec="/x", config_schema="/y")
    call_command("open_demo_commerce", stdout=open("/dev/null", "w"))
    assert list(PaymentHandler.objects.values_list("handler_id", flat=True)) == ["shop_own"]
