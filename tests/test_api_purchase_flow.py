"""The purchase flow over real HTTP (the agent API's smoke path), driven only by agents.json, and cart isolation
between sessions (in process)."""
from decimal import Decimal

import pytest
import requests

from catalog.demo import load_demo_catalog
from tests.api_client import (
    API,
    AgentClient,
    assert_error,
    ok_data,
    purchase_through_agents_json,
)
from tests.factories import make_product


def test_the_declared_purchase_flow_ends_in_a_human_checkout_page(live_server):
    load_demo_catalog()
    product, cart, handoff, agent = purchase_through_agents_json(live_server.url, "mug")

    assert [(item["item_id"], item["quantity"]) for item in cart["items"]] == [(product["id"], 3)]
    assert cart["subtotal"] == float(Decimal(str(product["price"])) * 3)
    assert handoff["human_handoff"] is True
    assert handoff["checkout_url"].startswith(f"{live_server.url}/")
    page = requests.get(handoff["checkout_url"], timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert product["name"] in page.text

    assert ok_data(agent.call("cart.view"))["items"] == []
    assert agent.end_session()["ended"] is True


@pytest.fixture
def two_agents(site_client):
    first, second = AgentClient(django_client=site_client), AgentClient(django_client=site_client)
    first.start_session()
    second.start_session()
    return first, second


def test_a_session_never_sees_or_changes_another_sessions_cart(two_agents):
    first, second = two_agents
    mug, vase = make_product(), make_product()
    second.add_to_cart(vase.public_id, 3)
    first.add_to_cart(mug.public_id)

    assert [item["item_id"] for item in first.cart()["items"]] == [mug.public_id]
    assert_error(first.put(f"{API}/cart/update", {"item_id": vase.public_id, "quantity": 1}), 404, "item_not_in_cart")
    assert_error(first.delete(f"{API}/cart/remove", {"item_id": vase.public_id}), 404, "item_not_in_cart")

    second_cart = second.cart()
    assert [(item["item_id"], item["quantity"]) for item in second_cart["items"]] == [(vase.public_id, 3)]


def test_checking_out_one_session_leaves_the_other_cart_untouched(two_agents):
    first, second = two_agents
    mug = make_product()
    first.add_to_cart(mug.public_id)
    second.add_to_cart(mug.public_id, 2)

    ok_data(first.post(f"{API}/checkout"))

    assert first.cart()["items"] == []
    assert second.cart()["items"][0]["quantity"] == 2
