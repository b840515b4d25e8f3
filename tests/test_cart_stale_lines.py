"""Carts that outlive their products: a line whose product was unpublished, deleted, repriced or
oversold since the agent saw the cart (issue 39, items 1-4).

The app tells the agent every change of its cart it did not make itself, on the next cart answer
and at checkout, for any provider (core/cart_notices.py), and refuses to hand off a line its
provider no longer sells. In process, through the Django test client, in rolled-back transactions.
"""
from decimal import Decimal

import pytest
from django.conf import settings as django_settings

from agents_protocol.core import cart_notices
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.money import NotMoney, amount_written
from agents_protocol.core.provider import Handoff, ItemPage, ShopProvider
from catalog.models import Product
from tests.api_client import API, SESSION_PATH
from tests.factories import make_product

pytestmark = pytest.mark.django_db


class Agent:
    """One agent session over the Django test client."""

    def __init__(self, client):
        self.client = client
        created = client.post(SESSION_PATH, content_type="application/json")
        assert created.status_code == 201, created.content
        self.headers = {"HTTP_AUTHORIZATION": f"Bearer {created.json()['data']['session_token']}"}

    def call(self, method, path, params=None, status=200):
        if method == "get":
            response = self.client.get(f"{API}{path}", params or {}, **self.headers)
        else:
            response = getattr(self.client, method)(f"{API}{path}", params or {}, content_type="application/json",
                                                    **self.headers)
        assert response.status_code == status, response.content
        body = response.json()
        return body["data"] if body["ok"] else body

    def add(self, item_id, quantity=1):
        return self.call("post", "/cart/add", {"item_id": item_id, "quantity": quantity})

    def view(self):
        return self.call("get", "/cart/view")

    def checkout(self, status=200):
        return self.call("post", "/checkout", status=status)


# A shop's own provider that writes no notice code: its cart is a dict per session, its items the
# catalog's products, which it lists only while active.
CARTS = {}


class PlainProvider(ShopProvider):
    def item_detail(self, context, *, item_id):
        product = Product.objects.filter(public_id=item_id, is_active=True).first()
        if product is None:
            return None
        return {"id": product.public_id, "name": product.name, "price": product.price, "currency": "USD",
                "stock": product.stock}

    def search(self, context, *, query, page, limit):
        return ItemPage([], 0)

    def cart_add(self, context, *, item_id, quantity):
        lines = CARTS.setdefault(context.session.pk, {})
        lines[item_id] = lines.get(item_id, 0) + quantity
        return self.line(context, item_id, lines[item_id])

    def cart_view(self, context):
        lines = CARTS.get(context.session.pk, {})
        products = {p.public_id: p for p in Product.objects.filter(public_id__in=lines)}
        items = [{"item_id": item, "name": products[item].name, "unit_price": products[item].price,
                  "quantity": quantity, "line_total": products[item].price * quantity, "currency": "USD"}
                 for item, quantity in lines.items() if item in products]
        return {"items": items, "subtotal": sum((i["line_total"] for i in items), Decimal(0)), "currency": "USD",
                "cart_size": len(items)}

    def cart_update(self, context, *, item_id, quantity):
        lines = CARTS.get(context.session.pk, {})
        if item_id not in lines:
            raise CapabilityError(404, "item_not_in_cart", f"{item_id} is not in the cart.")
        lines[item_id] = quantity
        if not quantity:  # quantity 0 removes the line
            del lines[item_id]
        return self.line(context, item_id, quantity)

    def checkout(self, context):
        from django.utils import timezone
        CARTS.pop(context.session.pk, None)
        return Handoff(checkout_url=context.absolute_url("/pay/1"), expires_at=timezone.now(), order_id="1")

    def line(self, context, item_id, quantity):
        cart = self.cart_view(context)
        return {"item_id": item_id, "quantity": quantity, "cart_size": cart["cart_size"], "cart": cart}


@pytest.fixture
def plain_shop(settings):
    settings.AGENTS_PROTOCOL = {**django_settings.AGENTS_PROTOCOL,
                                "PROVIDER": "tests.test_cart_stale_lines.PlainProvider"}
    CARTS.clear()
    yield
    CARTS.clear()


def test_a_price_changed_since_the_cart_was_seen_is_named_in_cart_view_and_at_checkout(client, plain_shop):
    mug = make_product(name="Blue mug", price=Decimal("20.00"))
    agent = Agent(client)
    agent.add(mug.public_id, 2)
    Product.objects.filter(pk=mug.pk).update(price=Decimal("25.00"))

    view = agent.view()
    assert view["notices"] == [
        f"The price of Blue mug ({mug.public_id}) changed from 20.00 to 25.00 USD since you last saw the cart.",
        "The subtotal is now 50.00 USD, not 40.00.",
    ]
    assert "notices" not in agent.view()  # said once

    Product.objects.filter(pk=mug.pk).update(price=Decimal("22.00"))
    handoff = agent.checkout()
    assert handoff["notices"][0] == (
        f"The price of Blue mug ({mug.public_id}) changed from 25.00 to 22.00 USD since you last saw the cart.")


def test_a_line_whose_product_was_deleted_is_named_with_the_new_subtotal_at_checkout(client, plain_shop):
    mug, bowl = make_product(name="Mug", price=Decimal("21.50")), make_product(name="Bowl", price=Decimal("20.00"))
    agent = Agent(client)
    agent.add(mug.public_id)
    assert agent.add(bowl.public_id)["cart"]["subtotal"] == 41.5
    bowl.delete()

    handoff = agent.checkout()
    assert handoff["notices"] == [
        f"Bowl ({bowl.public_id}) is no longer in the cart: the shop removed it.",
        "The subtotal is now 21.50 USD, not 41.50.",
    ]


def test_a_deleted_line_is_named_on_the_next_cart_answer(client, plain_shop):
    mug, bowl = make_product(name="Mug"), make_product(name="Bowl")
    agent = Agent(client)
    agent.add(mug.public_id)
    agent.add(bowl.public_id)
    bowl.delete()

    added = agent.add(mug.public_id)
    assert added["notices"] == [f"Bowl ({bowl.public_id}) is no longer in the cart: the shop removed it."]
    assert "notices" not in agent.view()


def test_checkout_refuses_a_line_no_longer_for_sale_naming_it(client, plain_shop):
    mug, vase = make_product(name="Mug"), make_product(name="Hidden vase")
    agent = Agent(client)
    agent.add(mug.public_id)
    agent.add(vase.public_id)
    Product.objects.filter(pk=vase.pk).update(is_active=False)

    refused = agent.checkout(status=400)
    assert refused["code"] == "insufficient_stock"
    assert refused["error"] == f"Hidden vase ({vase.public_id}) is no longer for sale; cart.remove it before checking out."
    agent.call("put", "/cart/update", {"item_id": vase.public_id, "quantity": 0})


def test_checkout_says_when_a_line_is_above_the_stock_counted_now(client, plain_shop):
    jug = make_product(name="Jug", stock=7)
    agent = Agent(client)
    agent.add(jug.public_id, 5)
    Product.objects.filter(pk=jug.pk).update(stock=3)

    assert agent.checkout()["notices"] == [
        f"Only 3 of Jug ({jug.public_id}) are in stock now but the cart holds 5: the shop does not hold stock "
        "for a cart, so your human may be unable to pay for all of them."]


# The demo shop (acme/agents.py).

def test_the_demo_lowers_and_removes_a_line_whose_product_was_unpublished(client):
    vase, mug = make_product(name="Vase", stock=5), make_product(name="Mug")
    agent = Agent(client)
    agent.add(mug.public_id)
    agent.add(vase.public_id, 3)
    Product.objects.filter(pk=vase.pk).update(is_active=False)

    refused = agent.checkout(status=400)
    assert (refused["code"], f"({vase.public_id})" in refused["error"]) == ("insufficient_stock", True)
    lowered = agent.call("put", "/cart/update", {"item_id": vase.public_id, "quantity": 1})
    assert lowered["quantity"] == 1
    agent.call("put", "/cart/update", {"item_id": vase.public_id, "quantity": 2, }, status=400)  # no raising it
    agent.call("delete", "/cart/remove", {"item_id": vase.public_id})
    assert [line["item_id"] for line in agent.view()["items"]] == [mug.public_id]
    assert agent.checkout()["checkout_url"]


def test_the_demo_names_a_price_changed_since_the_cart_was_seen(client):
    mug = make_product(name="Mug", price=Decimal("10.00"))
    agent = Agent(client)
    agent.add(mug.public_id)
    Product.objects.filter(pk=mug.pk).update(price=Decimal("12.00"))

    assert agent.view()["notices"][0] == (
        f"The price of Mug ({mug.public_id}) changed from 10.00 to 12.00 USD since you last saw the cart.")


# The snapshot's prices (core/cart_notices.py price_text): written as the answer writes them.

@pytest.mark.parametrize("currency", ["USD", "JPY", "BHD", "XAU", None])
@pytest.mark.parametrize("amount", [Decimal("10.00"), Decimal("10"), Decimal("9.999"), Decimal("-0.00"),
                                    Decimal("1E+2"), Decimal("12345678901234567890.000"), Decimal("NaN"), 9.995, 7,
                                    True, "10", None])
def test_a_snapshot_price_is_the_text_of_the_amount_as_written(amount, currency):
    line = {"unit_price": amount, "currency": currency}
    try:
        written = amount_written(line, "unit_price", "USD")
    except NotMoney:
        with pytest.raises(NotMoney):
            cart_notices.price_text(line, "unit_price", "USD")
        return
    assert cart_notices.price_text(line, "unit_price", "USD") == (None if written is None else str(written))
