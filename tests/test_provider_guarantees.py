"""What the app does for a shop's provider, in process: money written with its currency's minor
units whatever the provider returns, quantities range-checked before the provider is called,
and every call that changes something inside a transaction the app opens, with its audit event.
"""
from decimal import Decimal

import pytest
from django.db import connection

from agents_protocol.core.capabilities import declared_output, registered_names
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.money import MONEY_KEYS, as_money, minor_units, money_written
from agents_protocol.core.provider import ItemPage, ShopProvider
from agents_protocol.models import AgentSession, AuditEvent
from catalog.models import Category
from tests.api_client import API, AgentClient, assert_error, ok_data

pytestmark = pytest.mark.django_db

CALLS = []  # (method, arguments, inside a transaction?) of every provider call


def raw_cart():
    return {"items": [{"item_id": "cup", "name": "Cup", "unit_price": Decimal("18"), "quantity": 2, "line_total": 36,
                       "currency": "USD"},
                      {"item_id": "pot", "name": "Pot", "unit_price": 9.999, "quantity": 1, "line_total": 9.999,
                       "currency": "USD"}],
            "subtotal": 45.999, "currency": "USD", "cart_size": 2}


class RawProvider(ShopProvider):
    """Returns money as a careless shop would, and records how it was called."""

    def search(self, context, *, query, page, limit):
        return ItemPage([{"id": "cup", "name": "Cup", "price": Decimal("18"), "currency": "USD"},
                         {"id": "pot", "name": "Pot", "price": 9.999, "currency": "USD"},
                         {"id": "bowl", "name": "Bowl", "price": Decimal("1800.4"), "currency": "JPY"},
                         {"id": "dinar", "name": "Dish", "price": 2, "currency": "BHD"}], 4)

    def cart_add(self, context, *, item_id, quantity):
        CALLS.append(("cart_add", {"item_id": item_id, "quantity": quantity}, connection.in_atomic_block))
        Category.objects.create(name=f"Written by cart.add {item_id}", slug=f"written-{item_id}")
        if item_id == "fails-after-writing":
            raise CapabilityError(409, "out_of_stock", "Sold out while you were adding it.")
        return {"item_id": item_id, "quantity": quantity, "cart_size": 2, "cart": raw_cart()}

    def cart_update(self, context, *, item_id, quantity):
        CALLS.append(("cart_update", {"item_id": item_id, "quantity": quantity}, connection.in_atomic_block))
        context.record_change()  # a provider may say where its change is made: the event is still appended once
        return {"item_id": item_id, "quantity": quantity, "cart_size": 2, "cart": raw_cart()}

    def cart_view(self, context):
        CALLS.append(("cart_view", {}, connection.in_atomic_block))
        return raw_cart()


@pytest.fixture
def raw_shop(settings, site_client):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "PROVIDER": f"{__name__}.RawProvider"}
    CALLS.clear()
    agent = AgentClient(django_client=site_client)
    agent.start_session(agent_name="test")
    return agent


def cart_add_events():
    return list(AuditEvent.objects.filter(capability="cart.add").values_list("response_status", "policy_result"))


def test_money_is_written_with_the_minor_units_of_its_currency(raw_shop):
    response = raw_shop.get(f"{API}/search", {"q": "cup"})
    assert '"total":4,' in response.text  # a count, not money
    assert '"price":18.00,' in response.text and '"price":10.00,' in response.text
    assert '"price":1800,' in response.text and '"price":2.000,' in response.text
    prices = [(item["id"], item["price"]) for item in ok_data(response)["results"]]
    assert prices == [("cup", 18), ("pot", 10), ("bowl", 1800), ("dinar", 2)]


def test_a_carts_amounts_take_the_carts_currency(raw_shop):
    response = raw_shop.get(f"{API}/cart/view")
    assert '"subtotal":46.00' in response.text and '"line_total":36.00' in response.text
    assert '"line_total":10.00' in response.text
    assert ok_data(response)["subtotal"] == 46


@pytest.mark.parametrize("path, method, quantity", [
    ("/cart/add", "POST", 0), ("/cart/add", "POST", -1), ("/cart/update", "PUT", -1), ("/cart/add", "POST", 1001),
])
def test_a_quantity_out_of_range_never_reaches_the_provider(raw_shop, path, method, quantity):
    body = assert_error(raw_shop.request(method, f"{API}{path}", {"item_id": "cup", "quantity": quantity}),
                        400, "invalid_params")
    assert list(body["fields"]) == ["quantity"]
    assert CALLS == []


def test_quantities_in_range_do(raw_shop):
    ok_data(raw_shop.put(f"{API}/cart/update", {"item_id": "cup", "quantity": 0}))
    ok_data(raw_shop.post(f"{API}/cart/add", {"item_id": "cup", "quantity": 1000}))
    assert [(name, arguments["quantity"]) for name, arguments, _ in CALLS] == [("cart_update", 0), ("cart_add", 1000)]


@pytest.mark.django_db(transaction=True)  # outside the test's own transaction: what the app opens is seen
def test_a_change_runs_in_the_apps_transaction_with_its_audit_event(raw_shop):
    ok_data(raw_shop.post(f"{API}/cart/add", {"item_id": "cup", "quantity": 2}))
    ok_data(raw_shop.get(f"{API}/cart/view"))
    assert [(name, in_transaction) for name, _, in_transaction in CALLS] == [("cart_add", True), ("cart_view", False)]
    assert Category.objects.filter(slug="written-cup").exists()
    assert cart_add_events() == [(200, "allow")]


def test_a_provider_that_records_its_change_itself_gets_one_event(raw_shop):
    ok_data(raw_shop.put(f"{API}/cart/update", {"item_id": "cup", "quantity": 3}))
    session = AgentSession.objects.get()
    assert list(session.audit_events.order_by("seq").values_list("capability", flat=True)) == ["session.create", "cart.update"]


def test_a_refusal_after_a_write_rolls_the_write_back(raw_shop):
    assert_error(raw_shop.post(f"{API}/cart/add", {"item_id": "fails-after-writing", "quantity": 1}),
                 409, "out_of_stock")
    assert not Category.objects.filter(slug="written-fails-after-writing").exists()
    assert cart_add_events() == [(409, "deny:out_of_stock")]


@pytest.mark.parametrize("currency, units", [("USD", 2), ("usd", 2), ("EUR", 2), ("JPY", 0), ("KRW", 0),
                                             ("BHD", 3), ("CLF", 4), ("XAU", 2), ("ZZZ", 2), (None, 2)])
def test_minor_units_come_from_iso_4217_with_two_by_default(currency, units):
    assert minor_units(currency) == units


def test_amounts_round_half_up_and_floats_are_read_as_written():
    assert as_money(Decimal("0.125"), "USD") == Decimal("0.13")
    assert as_money(2.675, "USD") == Decimal("2.68")  # the float 2.675 is 2.67499999…; its repr is 2.675
    assert as_money(Decimal("-4.5"), "JPY") == Decimal("-5")
    assert str(as_money(Decimal("18"), "USD")) == "18.00"


def test_only_amounts_in_a_currency_are_rewritten():
    data = {"currency": "JPY", "price": True, "total": "12.5", "items": [{"stock": 3, "price": 7.5}],
            "variants": [{"id": "v", "price": 1.5, "currency": "USD"}]}
    assert money_written(data) == {"currency": "JPY", "price": True, "total": "12.5",
                                   "items": [{"stock": 3, "price": Decimal("8")}],
                                   "variants": [{"id": "v", "price": Decimal("1.50"), "currency": "USD"}]}
    page = {"results": [{"id": "cup", "price": 9.999, "currency": "USD"}], "total": 10, "page": 1, "limit": 20}
    assert money_written(page) == {"results": [{"id": "cup", "price": Decimal("10.00"), "currency": "USD"}],
                                   "total": 10, "page": 1, "limit": 20}


def declared_objects(schema):
    """Every object schema inside `schema`, itself included."""
    if schema.get("type") == "object":
        yield schema
    inside = [*schema.get("properties", {}).values(), *([schema["items"]] if "items" in schema else [])]
    for rule in inside:
        yield from declared_objects(rule)


def test_every_amount_a_builtin_output_declares_is_written_as_money():
    """An amount is a number beside a currency (core/money.py): each one the declarations name is an amount
    money_written rewrites, so what agents read has the currency's decimals the schemas describe."""
    outputs = [declared_output(name) or {} for name in registered_names()]
    priced = [schema for output in outputs for schema in declared_objects(output)
              if "currency" in schema.get("properties", {})]
    amounts = {name for schema in priced for name, rule in schema["properties"].items() if rule.get("type") == "number"}
    assert amounts == {"price", "unit_price", "line_total", "subtotal"}
    assert amounts <= MONEY_KEYS
