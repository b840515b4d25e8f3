"""The demo as the place to test an ACP agent against: after `make demo`'s commands, a key from
/developers/ buys a demo piece with the test handler, 3-D Secure included; staff's own
configuration stays."""
import pytest
from django.core.management import call_command

from agents_protocol.checkout.models import PaymentHandler
from catalog.models import Product
from tests.acp_support import AUTHENTICATED, FULFILLMENT, Acp, create_body, pay_body

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(db):
    call_command("load_demo_catalog", stdout=open("/dev/null", "w"))
    call_command("open_demo_acp", stdout=open("/dev/null", "w"))


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
    call_command("open_demo_acp", stdout=open("/dev/null", "w"))
    assert list(PaymentHandler.objects.values_list("handler_id", flat=True)) == ["shop_own"]
