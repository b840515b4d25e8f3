"""What the ACP tests share: the shop (the UCP suite's flower shop, loaded as an operator would,
with ACP turned on), platforms with keys, and requests with ACP's headers."""
import json
import uuid

import pytest
from django.core.management import call_command

from agents_protocol.checkout.models import CommerceConfig
from agents_protocol.platforms import keys
from agents_protocol.platforms.models import Platform

VERSION = "2026-04-17"
SHOP = {
    "products.csv": "id,title,price,image_url\nbouquet_roses,Bouquet of Red Roses,3500,\n"
                    "pot_ceramic,Ceramic Pot,1500,\ngardenias,Gardenias,2000,\n",
    "inventory.csv": "product_id,quantity\nbouquet_roses,1000\npot_ceramic,5\ngardenias,0\n",
    "discounts.csv": "code,type,value,description\n10OFF,percentage,10,10% Off\n",
    "shipping_rates.csv": "id,country_code,service_level,price,title\nstd-ship,default,standard,500,Standard Shipping\n"
                          "exp-ship-us,US,express,1500,Express Shipping (US)\n",
    "promotions.csv": "id,type,min_subtotal,eligible_item_ids,description\n",
    "customers.csv": "id,name,email\n",
    "addresses.csv": "id,customer_id,street_address,city,state,postal_code,country\n",
    "payment_instruments.csv": "id,type,brand,last_digits,token,handler_id\n",
}
ADDRESS = {"name": "Ada Buyer", "line_one": "1 Elm St", "line_two": "", "city": "Springfield", "state": "IL",
           "country": "US", "postal_code": "62704"}
FULFILLMENT = {"name": "Ada Buyer", "phone_number": "15551234567", "address": ADDRESS}
BUYER = {"first_name": "Ada", "last_name": "Buyer", "email": "ada@example.com"}
TEST_HANDLER = "mock_payment_handler"


def load_shop(directory):
    for name, text in SHOP.items():
        (directory / name).write_text(text)
    call_command("load_ucp_flower_shop", str(directory), stdout=open("/dev/null", "w"))
    commerce = CommerceConfig.load()
    commerce.acp_enabled, commerce.acp_intervention_types = True, ["3ds"]
    commerce.save()


def new_platform(**fields):
    """(platform, raw key)."""
    platform = Platform.objects.create(**{"name": "Test platform", **fields})
    return platform, keys.issue_key(platform)


def acp_headers(key, idempotency_key=None, **extra):
    headers = {"Authorization": f"Bearer {key}", "API-Version": VERSION, "Request-Id": f"req_{uuid.uuid4().hex}"}
    if idempotency_key is not False:
        headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
    return {**headers, **extra}


def create_body(*item_ids, **extra):
    return {"currency": "usd", "line_items": [{"id": item_id} for item_id in item_ids or ("bouquet_roses",)],
            "capabilities": {"interventions": {"supported": ["3ds"]}}, **extra}


def pay_body(token="success_token", handler_id=TEST_HANDLER, **extra):
    return {"buyer": BUYER, "payment_data": {"handler_id": handler_id, "instrument": {
        "type": "card", "credential": {"type": "spt", "token": token}}}, **extra}


AUTHENTICATED = {"outcome": "authenticated", "outcome_details": {
    "three_ds_cryptogram": "AbCdEfGhIjKlMnOpQrStUvWxY0=", "electronic_commerce_indicator": "05",
    "transaction_id": "dsTransId_abc123", "version": "2.2.0"}}


@pytest.fixture
def shop(tmp_path, db):
    load_shop(tmp_path)


@pytest.fixture
def platform_key(shop):
    return new_platform()[1]


class Acp:
    """Calls of one platform through a Django test client."""

    def __init__(self, client, key):
        self.client, self.key = client, key

    sent = None  # (method, path, body bytes, headers) of the last call

    def post(self, path, body=None, raw=None, **headers):
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        headers = acp_headers(self.key, **headers)
        self.sent = ("POST", path, data.encode() if isinstance(data, str) else data,
                     {**headers, "Content-Type": "application/json"})
        return self.client.post(path, data=data, content_type="application/json", headers=headers)

    def get(self, path, **headers):
        headers = acp_headers(self.key, idempotency_key=False, **headers)
        self.sent = ("GET", path, None, headers)
        return self.client.get(path, headers=headers)

    def create(self, body=None):
        response = self.post("/checkout_sessions", body or create_body())
        assert response.status_code == 201, response.content
        return response.json()
