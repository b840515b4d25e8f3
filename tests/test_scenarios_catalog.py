"""The catalog's scenarios played (in process) through the normal agent API (catalog/scenarios.py,
docs/agent-testing.md): a piece always sold out, the last one, a price that changes once in a cart,
a variant discontinued after it was added."""
import jsonschema
import pytest

from agents_protocol.core.capabilities import declared_output
from catalog import scenarios
from catalog.models import Product
from tests.api_client import API, AgentClient, assert_error, ok_data
from tests.test_checkout_pages import Human

TIMEOUT = 10


@pytest.fixture
def pieces(http):
    """The scenarios installed; returns `http`, which reaches the site in process."""
    scenarios.install_scenarios()
    return http


def agent(http):
    client = AgentClient(django_client=http.django_client)
    client.start_session(agent_name="acme-scenario-test")
    return client


def detail(client, item_id):
    return ok_data(client.get(f"{API}/detail/{item_id}"))


def add(client, item_id, quantity=1):
    return client.post(f"{API}/cart/add", {"item_id": item_id, "quantity": quantity})


def test_the_sold_out_piece_is_never_in_stock(pieces):
    client = agent(pieces)

    piece = detail(client, scenarios.SOLD_OUT)

    assert (piece["stock"], piece["in_stock"]) == (0, False)
    body = assert_error(add(client, scenarios.SOLD_OUT), 400, "insufficient_stock")
    assert "Sold-Out Test Mug (test-sold-out-mug) is out of stock; choose another item." in body["error"]


def test_the_last_one_is_taken_by_the_first_confirmed_checkout(pieces):
    first, second = agent(pieces), agent(pieces)
    assert detail(first, scenarios.LAST_ONE)["stock"] == 1
    assert_error(add(first, scenarios.LAST_ONE, 2), 400, "insufficient_stock")
    ok_data(add(first, scenarios.LAST_ONE))
    ok_data(add(second, scenarios.LAST_ONE))
    handoff = ok_data(first.post(f"{API}/checkout"))

    human = Human(handoff["checkout_url"], pieces)
    human.open()
    assert "your order is confirmed" in human.confirm().text

    assert detail(second, scenarios.LAST_ONE)["stock"] == 0  # the second's cart holds it: not re-armed
    assert_error(second.post(f"{API}/checkout"), 400, "insufficient_stock")
    assert_error(add(agent(pieces), scenarios.LAST_ONE), 400, "insufficient_stock")
    assert detail(agent(pieces), scenarios.LAST_ONE)["stock"] == 1  # a fresh look re-arms it


def test_an_agent_whose_open_order_holds_the_last_one_does_not_put_it_back(pieces):
    first, second = agent(pieces), agent(pieces)
    ok_data(add(first, scenarios.LAST_ONE))
    ok_data(add(second, scenarios.LAST_ONE))
    first_human = Human(ok_data(first.post(f"{API}/checkout"))["checkout_url"], pieces)
    second_human = Human(ok_data(second.post(f"{API}/checkout"))["checkout_url"], pieces)
    first_human.open()
    assert "your order is confirmed" in first_human.confirm().text

    # The second's cart is an order now: its own look must not restock what its human is about to be refused.
    assert detail(second, scenarios.LAST_ONE)["stock"] == 0
    second_human.open()
    refused = second_human.confirm()
    assert refused.status_code == 409 and "Last-One Test Vase is sold out" in refused.text
    assert Product.objects.get(public_id=scenarios.LAST_ONE).stock == 0
    assert detail(agent(pieces), scenarios.LAST_ONE)["stock"] == 1  # anyone else's look re-arms it


def test_the_price_changes_once_in_the_cart_and_checkout_says_so(pieces):
    client = agent(pieces)
    assert detail(client, scenarios.PRICE_CHANGE)["price"] == 30.0

    added = ok_data(add(client, scenarios.PRICE_CHANGE, 2))

    assert [(i["item_id"], i["unit_price"]) for i in added["cart"]["items"]] == [(scenarios.PRICE_CHANGE, 36.0)]
    assert detail(client, scenarios.PRICE_CHANGE)["price"] == 36.0  # its own cart holds it: not re-armed
    assert client.cart()["subtotal"] == 72.0
    handoff = ok_data(client.post(f"{API}/checkout"))
    assert handoff["notices"] == [
        "The price of Price-Change Test Bowl (test-price-change-bowl) changed from 30.00 to 36.00 USD since it "
        "was added to the cart; the order and your human's page use the new price."
    ]
    jsonschema.validate(handoff, {**declared_output("checkout"), "additionalProperties": False})  # as published
    page = pieces.get(handoff["checkout_url"], timeout=TIMEOUT).text
    assert "36.00 USD" in page and "72.00 USD" in page and "30.00 USD" not in page
    assert detail(agent(pieces), scenarios.PRICE_CHANGE)["price"] == 30.0  # re-armed for the next agent


def test_a_checkout_without_a_price_change_has_no_notices(pieces):
    client = agent(pieces)
    ok_data(add(client, scenarios.STAYING_VARIANT))
    assert "notices" not in ok_data(client.post(f"{API}/checkout"))


def test_the_discontinued_variant_is_withdrawn_once_added(pieces):
    client = agent(pieces)
    tumbler = detail(client, scenarios.TUMBLER)
    assert {v["id"] for v in tumbler["variants"]} == {scenarios.STAYING_VARIANT, scenarios.DISCONTINUED}

    ok_data(add(client, scenarios.DISCONTINUED))
    ok_data(add(client, scenarios.STAYING_VARIANT))

    line = next(i for i in client.cart()["items"] if i["item_id"] == scenarios.DISCONTINUED)
    assert (line["available"], line["in_stock"]) == (0, False)
    assert_error(client.get(f"{API}/detail/{scenarios.DISCONTINUED}"), 404, "unknown_item")
    assert [v["id"] for v in detail(client, scenarios.TUMBLER)["variants"]] == [scenarios.STAYING_VARIANT]
    body = assert_error(client.post(f"{API}/checkout"), 400, "insufficient_stock")
    assert "Test Tumbler, discontinued" in body["error"]
    ok_data(client.delete(f"{API}/cart/remove", {"item_id": scenarios.DISCONTINUED}))
    assert ok_data(client.post(f"{API}/checkout"))["human_handoff"] is True
    assert len(detail(agent(pieces), scenarios.TUMBLER)["variants"]) == 2  # re-armed for the next agent


def test_installing_twice_restores_the_documented_state(pieces):
    Product.objects.filter(public_id=scenarios.LAST_ONE).update(stock=0)
    Product.objects.filter(public_id=scenarios.PRICE_CHANGE).update(price=scenarios.RAISED_PRICE)
    Product.objects.filter(public_id=scenarios.DISCONTINUED).update(is_active=False)

    scenarios.install_scenarios()
    scenarios.install_scenarios()

    state = {p.public_id: (p.stock, p.price, p.is_active) for p in Product.objects.filter(tags=["test"])}
    assert state[scenarios.LAST_ONE][0] == 1
    assert state[scenarios.PRICE_CHANGE][1] == scenarios.LISTED_PRICE
    assert state[scenarios.DISCONTINUED][2] is True
    assert state[scenarios.SOLD_OUT][0] == 0
    assert len(state) == 6
