"""What ordinary Django code returns from a shop's provider reaches the agent, over HTTP.

A provider written with the ORM hands the app datetimes, dates, UUIDs, lazy translation text
and sets: the one codec writes them (times as the app writes its own, in UTC with a Z), and
anything else it cannot write is still the 500 envelope. What is missing it finds with
get_object_or_404 or Model.objects.get: a 404, never a 500.
"""
import uuid
from datetime import date, datetime, timezone

import pytest
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy

from agents_protocol.core import codec
from agents_protocol.core.provider import ItemPage, ShopProvider
from catalog.models import Category
from tests.api_client import API, AgentClient, assert_error, ok_data

pytestmark = pytest.mark.django_db

ORDER_UUID = uuid.UUID("12345678-1234-5678-1234-567812345678")


class DjangoValuesProvider(ShopProvider):
    """Answers with what model fields and Django's helpers hold, as a shop written without agents would."""

    def search(self, context, *, query, page, limit):
        if query == "unwritable":
            return ItemPage([{"id": "cup", "name": "Cup", "maker": object()}], 1)
        return ItemPage([{
            "id": "cup", "name": gettext_lazy("Cup"),
            "listed_at": datetime(2026, 11, 22, 10, 0, 5, 123, tzinfo=timezone.utc),
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
def django_shop(settings, live_server):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "PROVIDER": f"{__name__}.DjangoValuesProvider"}
    settings.TIME_ZONE = "Europe/Paris"
    agent = AgentClient(live_server.url)
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


@pytest.mark.parametrize("item_id", ["no-such-bowl", "get-no-such-bowl"])
def test_detail_of_an_item_the_provider_does_not_find_is_unknown_item(django_shop, item_id):
    body = assert_error(django_shop.get(f"{API}/detail/{item_id}"), 404, "unknown_item")
    assert item_id in body["error"]


def test_detail_of_an_item_it_finds_is_answered(django_shop):
    Category.objects.create(name="Bowls", slug="bowls")
    assert ok_data(django_shop.get(f"{API}/detail/bowls")) == {"id": "bowls", "name": "Bowls"}


def test_a_model_missing_elsewhere_is_404_not_found(django_shop):
    assert_error(django_shop.post(f"{API}/cart/add", {"item_id": "no-such-bowl", "quantity": 1}), 404, "not_found")
