"""What ordinary Django code returns from a shop's provider reaches the agent, in process (and to
the official MCP client, over HTTP).

A provider written with the ORM hands the app datetimes, dates, UUIDs, lazy translation text
and sets: the one codec writes them (times as the app writes its own, in UTC with a Z), and
anything else it cannot write is still the 500 envelope. What is missing it finds with
get_object_or_404 or Model.objects.get: a 404, never a 500. Its pks (ints) are answered as the
text ids the published output schemas promise, which the official MCP client checks, and an
item it gives no price has neither price nor currency.
"""
import copy
import uuid
from collections import namedtuple
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from http import HTTPStatus

import jsonschema
import pytest
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agents_protocol.core import codec
from agents_protocol.core.capabilities import declared_output
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.provider import Handoff, ItemPage, ShopProvider
from catalog.models import Category
from tests.api_client import API, AgentClient, assert_error, ok_data
from tests.factories import make_product
from tests.test_interop_mcp import run_in_a_loop_of_its_own

pytestmark = pytest.mark.django_db

ORDER_UUID = uuid.UUID("12345678-1234-5678-1234-567812345678")


class DjangoValuesProvider(ShopProvider):
    """Answers with what model fields and Django's helpers hold, as a shop written without agents would."""

    def search(self, context, *, query, page, limit):
        if query == "unwritable":
            return ItemPage([{"id": "cup", "name": "Cup", "maker": object()}], 1)
        return ItemPage([{
            "id": "cup", "name": gettext_lazy("Cup"),
            "listed_at": datetime(2026, 11, 22, 10, 0, 5, 123, tzinfo=UTC),
            "restocked_at": datetime(2026, 7, 1, 12, 0),  # naive: USE_TZ=False, or a careless default
            "available_from": date(2026, 12, 1),
            "sku": ORDER_UUID,
            "tags": {"stoneware", "blue", "handmade"},
            "sizes": frozenset({10, 2, 7}),
        }], 1)

    def item_detail(self, context, *, item_id):
        if item_id.startswith("get-"):
            category = Category.objects.get(slug=item_id)
        else:
            category = get_object_or_404(Category, slug=item_id)
        return {"id": category.slug, "name": category.name}

    def cart_add(self, context, *, item_id, quantity):
        if item_id != "cup":
            Category.objects.get(slug=item_id)
        return {"item_id": item_id, "quantity": quantity, "cart_size": 1, "line_id": uuid.uuid4(),
                "cart": {"items": [], "subtotal": 0, "currency": "USD", "cart_size": 1}}


@pytest.fixture
def django_shop(settings, site_client):
    settings.TIME_ZONE = "Europe/Paris"
    return agent_of_a_shop(settings, site_client, DjangoValuesProvider)


def serve_with(settings, provider):
    """The site answers with `provider` as its shop."""
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "PROVIDER": f"{__name__}.{provider.__name__}"}


def agent_of_a_shop(settings, site_client, provider):
    """An agent, in a session (in process), of the site served with `provider` as its shop."""
    serve_with(settings, provider)
    agent = AgentClient(django_client=site_client)
    agent.start_session(agent_name="test")
    return agent


def test_datetimes_dates_uuids_lazy_text_and_sets_are_written(django_shop):
    [item] = ok_data(django_shop.get(f"{API}/search", {"q": "cup"}))["results"]
    assert item["name"] == "Cup"
    assert item["listed_at"] == "2026-11-22T10:00:05Z"
    assert item["restocked_at"] == "2026-07-01T10:00:00Z"  # read in TIME_ZONE (Paris, UTC+2 in July)
    assert item["available_from"] == "2026-12-01"
    assert item["sku"] == "12345678-1234-5678-1234-567812345678"
    assert item["tags"] == ["blue", "handmade", "stoneware"]
    assert item["sizes"] == [2, 7, 10]


def test_a_type_the_codec_does_not_know_is_still_the_500_envelope(django_shop):
    assert_error(django_shop.get(f"{API}/search", {"q": "unwritable"}), 500, "internal_error")


def test_an_answer_holding_a_uuid_is_kept_for_its_idempotency_key(django_shop):
    key = {"Idempotency-Key": "add-cup-once"}
    first = django_shop.post(f"{API}/cart/add", {"item_id": "cup", "quantity": 1}, headers=key)
    again = django_shop.post(f"{API}/cart/add", {"item_id": "cup", "quantity": 1}, headers=key)
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert ok_data(again)["line_id"] == ok_data(first)["line_id"]


def test_a_set_is_the_same_json_whatever_its_iteration_order():
    mixed = {1, "one", (2, "two"), frozenset({3})}
    written = codec.encode(mixed)
    assert written == b'["one",1,[2,"two"],[3]]'
    assert codec.encode(frozenset({frozenset({"b"}), frozenset({"a"})})) == b'[["a"],["b"]]'


def test_tuples_are_arrays_and_named_tuples_objects_as_simplejson_writes_them():
    """values_list(named=True) rows are named tuples; the codec leaves them to written_as_json,
    which writes them as simplejson's defaults did (its C encoder then asks only tuples)."""
    Row = namedtuple("Row", "id name")

    class Described:
        def _asdict(self):
            return {"kind": "described"}

    written = codec.encode({"row": Row(7, "Cup"), "pair": (1, ("a", Decimal("2.50"))), "rows": [Row(8, "Bowl")],
                            "other": Described()})
    assert written == (b'{"row":{"id":7,"name":"Cup"},"pair":[1,["a",2.50]],"rows":[{"id":8,"name":"Bowl"}],'
                       b'"other":{"kind":"described"}}')


@pytest.mark.parametrize("item_id", ["no-such-bowl", "get-no-such-bowl"])
def test_detail_of_an_item_the_provider_does_not_find_is_unknown_item(django_shop, item_id):
    body = assert_error(django_shop.get(f"{API}/detail/{item_id}"), 404, "unknown_item")
    assert item_id in body["error"]


def test_detail_of_an_item_it_finds_is_answered(django_shop):
    Category.objects.create(name="Bowls", slug="bowls")
    assert ok_data(django_shop.get(f"{API}/detail/bowls")) == {"id": "bowls", "name": "Bowls"}


def test_a_model_missing_elsewhere_is_404_not_found(django_shop):
    assert_error(django_shop.post(f"{API}/cart/add", {"item_id": "no-such-bowl", "quantity": 1}), 404, "not_found")


def pk_item(pk, price):
    return {"id": pk, "name": f"Item {pk}", "price": price, "currency": "USD"}


KEPT_VARIANTS = ({"id": 71, "attributes": {"size": "large"}, "price": None, "currency": "USD", "variant_of": 7},)
KEPT_DETAIL = {**pk_item(7, Decimal("12.5")), "variants": list(KEPT_VARIANTS)}


class IntegerIdsProvider(ShopProvider):
    """Answers with the ORM's integer pks as ids, and None for the price of an unpriced item."""

    def search(self, context, *, query, page, limit):
        return ItemPage([pk_item(7, Decimal("12.5")), pk_item(8, None)], 2)

    def browse(self, context, *, category, sort, page, limit):
        return ItemPage([pk_item(7, Decimal("12.5"))], 1)

    def item_detail(self, context, *, item_id):
        return KEPT_DETAIL  # a shop may hand out what it keeps between calls

    def cart_view(self, context):
        return {"items": [{"item_id": 71, "name": "Cup", "unit_price": Decimal("12.5"), "quantity": 1,
                           "line_total": Decimal("12.5"), "currency": "USD"}],
                "subtotal": Decimal("12.5"), "currency": "USD", "cart_size": 1}

    def cart_add(self, context, *, item_id, quantity):
        return {"item_id": int(item_id), "quantity": quantity, "cart_size": 1, "cart": self.cart_view(context)}

    def checkout(self, context):
        return Handoff(context.absolute_url("/pay/42"), datetime.now(UTC) + timedelta(hours=1), order_id=42)

    def order_status(self, context, *, order_id):
        order = {"order_id": 42, "status": "pending"}
        return order if order_id is not None else {"orders": [order]}


@pytest.fixture
def pk_shop(settings, site_client):
    return agent_of_a_shop(settings, site_client, IntegerIdsProvider)


def test_integer_ids_are_answered_as_the_text_the_output_schemas_promise(pk_shop):
    answers = {
        "search": pk_shop.get(f"{API}/search", {"q": "item"}),
        "browse": pk_shop.get(f"{API}/browse"),
        "detail": pk_shop.get(f"{API}/detail/7"),
        "cart.add": pk_shop.post(f"{API}/cart/add", {"item_id": "71", "quantity": 1}),
        "cart.view": pk_shop.get(f"{API}/cart/view"),
        "checkout": pk_shop.post(f"{API}/checkout"),
        "order.status": pk_shop.get(f"{API}/order/status"),
    }
    data = {name: ok_data(answer) for name, answer in answers.items()}
    for name, answer in data.items():
        jsonschema.validate(answer, declared_output(name))
    assert [item["id"] for item in data["search"]["results"]] == ["7", "8"]
    assert data["browse"]["items"][0]["id"] == "7"
    assert (data["detail"]["id"], data["detail"]["variants"][0]["id"]) == ("7", "71")
    assert data["detail"]["variants"][0]["variant_of"] == "7"
    assert (data["cart.add"]["item_id"], data["cart.add"]["cart"]["items"][0]["item_id"]) == ("71", "71")
    assert data["cart.view"]["items"][0]["item_id"] == "71"
    assert data["checkout"]["order_id"] == "42"
    assert data["order.status"]["orders"][0]["order_id"] == "42"
    one = ok_data(pk_shop.get(f"{API}/order/status", {"order_id": "42"}))
    jsonschema.validate(one, declared_output("order.status"))
    assert one["order_id"] == "42"


def test_the_providers_own_objects_are_never_changed(pk_shop):
    kept = copy.deepcopy(KEPT_DETAIL)
    for _ in range(2):
        assert ok_data(pk_shop.get(f"{API}/detail/7"))["variants"][0]["id"] == "71"
    assert KEPT_DETAIL == kept and KEPT_DETAIL["variants"][0] is KEPT_VARIANTS[0]


def test_an_unpriced_item_has_neither_price_nor_currency(pk_shop):
    priced, unpriced = ok_data(pk_shop.get(f"{API}/search", {"q": "item"}))["results"]
    assert (priced["price"], priced["currency"]) == (12.5, "USD")
    assert unpriced == {"id": "8", "name": "Item 8"}
    [variant] = ok_data(pk_shop.get(f"{API}/detail/7"))["variants"]
    assert "price" not in variant and "currency" not in variant


async def call_tools_with_the_official_client(url):
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        found = await session.call_tool("search", {"q": "item"})
        detail = await session.call_tool("detail", {"id": "7"})
        added = await session.call_tool("cart.add", {"item_id": found.structured_content["results"][0]["id"]})
    return found, detail, added


def test_the_official_mcp_client_takes_the_answers_and_an_id_goes_back_into_cart_add(settings, live_server):
    serve_with(settings, IntegerIdsProvider)
    found, detail, added = run_in_a_loop_of_its_own(call_tools_with_the_official_client(f"{live_server.url}/mcp"))
    assert not found.is_error and not detail.is_error and not added.is_error, added.content
    assert added.structured_content["item_id"] == "7"


class WideAmountsProvider(ShopProvider):
    """Prices as wide as a DecimalField holds, and one that is no number."""

    def search(self, context, *, query, page, limit):
        price = {"wide": Decimal("1e30"), "float": 1.5e300, "nan": Decimal("NaN"), "inf": float("inf")}[query]
        return ItemPage([pk_item("cup", Decimal("2.5")), pk_item("odd", price)], 2)


@pytest.fixture
def wide_shop(settings, site_client):
    return agent_of_a_shop(settings, site_client, WideAmountsProvider)


def test_an_amount_wider_than_the_default_decimal_context_is_written_to_its_cent(wide_shop):
    response = wide_shop.get(f"{API}/search", {"q": "wide"})
    assert '"price":1000000000000000000000000000000.00,' in response.text
    response = wide_shop.get(f"{API}/search", {"q": "float"})
    assert f'"price":{Decimal(repr(1.5e300)):f}.00,' in response.text


@pytest.mark.parametrize("query", ["nan", "inf"])
def test_a_price_that_is_no_number_is_a_500_whose_log_names_the_item(wide_shop, caplog, query):
    assert_error(wide_shop.get(f"{API}/search", {"q": query}), 500, "internal_error")
    assert "The provider gave item 'odd' a price of" in caplog.text


HANDOFFS = {
    "naive expiry": {"expires_at": datetime(2026, 12, 1, 12, 0)},
    "expiry as text": {"expires_at": "2026-12-01T12:00:00Z"},
    "relative url": {"checkout_url": "/pay/42"},
    "javascript url": {"checkout_url": "javascript:alert(1)"},
}
REFUSAL_STATUSES = {"status 200": 200, "status 999": 999, "status as text": "404"}


class CarelessRefusalsProvider(ShopProvider):
    """Refuses and hands off as a shop's code might get wrong, by the contact message it is given."""

    def contact(self, context, *, name, email, message):
        raise CapabilityError(REFUSAL_STATUSES[message], "sold_out", "Nothing left.")

    def checkout(self, context):
        handoff = {"checkout_url": context.absolute_url("/pay/42"),
                   "expires_at": datetime.now(UTC) + timedelta(hours=1), "notices": "The cup costs more now."}
        return Handoff(**{**handoff, **HANDOFFS.get(context.session.purpose, {})}, order_id="42")


@pytest.fixture
def careless_shop(settings, site_client):
    """An agent (no session yet, in process) of the site served with CarelessRefusalsProvider."""
    serve_with(settings, CarelessRefusalsProvider)
    return AgentClient(django_client=site_client)


@pytest.mark.parametrize("status", REFUSAL_STATUSES)
def test_a_refusal_with_a_status_that_is_no_http_error_is_the_500_envelope(careless_shop, status):
    agent = careless_shop
    agent.start_session(agent_name="test")
    contact = {"name": "Ann", "email": "ann@example.com", "message": status}
    assert_error(agent.post(f"{API}/contact", contact), 500, "internal_error")


def test_a_notice_given_as_one_string_is_one_notice(careless_shop):
    agent = careless_shop
    agent.start_session(agent_name="test")
    handoff = ok_data(agent.post(f"{API}/checkout"))
    assert handoff["notices"] == ["The cup costs more now."]
    # A shop that says nothing else about its page gets the default message, which promises no shipping step
    assert handoff["message"] == "Give this link to your human to review the order and pay. Do not open it yourself."


def test_the_demo_shop_tells_the_agent_what_its_page_asks_for(site_client):
    make_product(public_id="cup")
    agent = AgentClient(django_client=site_client)
    agent.start_session(agent_name="test")
    ok_data(agent.post(f"{API}/cart/add", {"item_id": "cup"}))
    assert "enter contact and shipping details" in ok_data(agent.post(f"{API}/checkout"))["message"]


@pytest.mark.parametrize("mistake", HANDOFFS)
def test_a_handoff_without_an_aware_expiry_or_an_absolute_url_is_the_500_envelope(careless_shop, mistake):
    agent = careless_shop
    agent.start_session(agent_name="test", purpose=mistake)
    assert_error(agent.post(f"{API}/checkout"), 500, "internal_error")


def test_a_capability_error_takes_an_http_status_of_the_standard_librarys_enum_too():
    assert CapabilityError(HTTPStatus.CONFLICT, "sold_out", "Nothing left.").status == 409


def test_a_shop_without_time_zones_hands_off_with_its_naive_datetimes(settings):
    settings.USE_TZ = False
    handoff = Handoff("https://shop.example/pay/42", datetime(2026, 12, 1, 12, 0), order_id="42")
    assert handoff.expires_at.tzinfo is None
