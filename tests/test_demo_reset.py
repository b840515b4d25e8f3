"""`manage.py demo_reset` after a day on the public demo: agents walked into every scenario (in
process), a human bought the last piece, staff edited products and the agents configuration. The
reset puts every demo product and test piece back as shipped, leaves staff's own products and
configuration alone, and a second run changes nothing."""
from io import StringIO

import pytest
from django.core.management import call_command

from agents_protocol.config_io import export_config
from agents_protocol.models import RateLimitConfig
from catalog import demo_data, scenarios
from catalog.models import Category, Product
from tests.api_client import API, AgentClient, ok_data
from tests.factories import make_product
from tests.test_checkout_pages import Human

FIELDS = ("name", "price", "stock", "is_active", "description", "variant_of_id")


def catalog_state():
    return {row["public_id"]: row for row in Product.objects.values("public_id", *FIELDS)}


@pytest.fixture
def demo(http):
    """The demo as shipped, in process; returns `http` to reach it."""
    call_command("demo_reset", stdout=StringIO())
    return http


def a_day_on_the_demo(http):
    """Agents walk into the scenarios that change shared state; a human buys the last vase."""
    browser, buyer = AgentClient(django_client=http.django_client), AgentClient(django_client=http.django_client)
    browser.start_session(agent_name="day-on-the-demo")
    for item_id in (scenarios.PRICE_CHANGE, scenarios.DISCONTINUED):
        ok_data(browser.post(f"{API}/cart/add", {"item_id": item_id, "quantity": 1}))
    buyer.start_session(agent_name="day-on-the-demo")
    for item_id in (scenarios.LAST_ONE, "mug-celadon"):
        ok_data(buyer.post(f"{API}/cart/add", {"item_id": item_id, "quantity": 1}))
    handoff = ok_data(buyer.post(f"{API}/checkout"))
    human = Human(handoff["checkout_url"], http)
    human.open()
    assert "your order is confirmed" in human.confirm().text


def test_the_reset_restores_the_shipped_catalog_and_leaves_staff_work_alone(demo):
    shipped = catalog_state()
    a_day_on_the_demo(demo)
    Product.objects.filter(public_id="teapot-tenmoku").update(price="1.00", name="Renamed by staff")
    Product.objects.filter(public_id=scenarios.SOLD_OUT).delete()
    staff_product = make_product(public_id="staff-own-jug", name="Staff's own jug", stock=3)
    RateLimitConfig.objects.update(requests_per_minute=42)
    configuration = export_config()

    after_the_day = catalog_state()
    assert after_the_day[scenarios.LAST_ONE]["stock"] == 0
    assert after_the_day[scenarios.PRICE_CHANGE]["price"] == scenarios.RAISED_PRICE
    assert after_the_day[scenarios.DISCONTINUED]["is_active"] is False
    assert after_the_day["mug-celadon"]["stock"] == shipped["mug-celadon"]["stock"] - 1

    output = StringIO()
    call_command("demo_reset", stdout=output)

    restored = catalog_state()
    assert {public_id: restored[public_id] for public_id in shipped} == shipped
    assert restored[staff_product.public_id]["name"] == "Staff's own jug"
    assert export_config() == configuration
    assert "the test pieces restored" in output.getvalue()


def test_a_second_reset_changes_nothing(demo):
    a_day_on_the_demo(demo)
    call_command("demo_reset", stdout=StringIO())
    before = catalog_state(), list(Category.objects.values())

    output = StringIO()
    call_command("demo_reset", stdout=output)

    assert (catalog_state(), list(Category.objects.values())) == before
    assert f"(0 created, 0 updated, {len(demo_data.demo_products())} unchanged)" in output.getvalue()
