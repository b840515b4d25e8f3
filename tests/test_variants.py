"""Variants (sizes, glazes) in process: detail lists them, cart.add takes a variant's id, listings
show the parent only, and every published document describes them."""
import json
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from jsonschema import Draft7Validator

from catalog.demo import load_demo_catalog
from catalog.models import Product
from acme.management.commands.load_demo_catalog import describe_demo_capabilities
from tests.api_client import API, AgentClient, assert_error, ok_data

pytestmark = pytest.mark.django_db

CANONICAL_SCHEMA = Path(__file__).resolve().parents[1] / "agents_protocol" / "schemas" / "agents.schema.json"


@pytest.fixture
def shop(site_client):
    load_demo_catalog()
    describe_demo_capabilities()  # the demo's own words, as `manage.py load_demo_catalog` loads them
    return AgentClient(django_client=site_client)


def document(shop, path):
    response = shop.get(path)
    assert response.status_code == 200
    return response.json()


def test_detail_lists_the_variants_with_their_own_ids_prices_and_stock(shop):
    response = shop.get(f"{API}/detail/round-planter")
    assert '"price":18.00,' in response.text
    planter = ok_data(response)
    assert [(v["id"], v["attributes"], v["price"], v["stock"], v["in_stock"]) for v in planter["variants"]] == [
        ("round-planter-small", {"size": "small"}, 18, 24, True),
        ("round-planter-medium", {"size": "medium"}, 28, 15, True),
        ("round-planter-large", {"size": "large"}, 42, 6, True),
    ]
    assert all(v["currency"] == "USD" and v["name"].startswith("Round Planter, ") for v in planter["variants"])


def test_a_variants_detail_names_its_parent(shop):
    cup = ok_data(shop.get(f"{API}/detail/stacking-cup-shino"))
    assert (cup["variant_of"], cup["attributes"], cup["price"]) == ("stacking-cup", {"glaze": "shino"}, 24)
    assert "variants" not in cup


def test_cart_add_takes_a_variants_id_and_refuses_the_parent(shop):
    shop.start_session(agent_name="test")
    body = assert_error(shop.post(f"{API}/cart/add", {"item_id": "nesting-bowl", "quantity": 1}),
                        400, "variant_required")
    assert "nesting-bowl" not in body["error"] and "variants" in body["error"]
    added = ok_data(shop.post(f"{API}/cart/add", {"item_id": "nesting-bowl-large", "quantity": 2}))
    assert [(i["item_id"], i["quantity"], i["unit_price"]) for i in added["cart"]["items"]] == [
        ("nesting-bowl-large", 2, 34)]


def test_listings_show_the_parent_only(shop):
    found = ok_data(shop.get(f"{API}/search", {"q": "round planter", "limit": 50}))["results"]
    assert [item["id"] for item in found] == ["round-planter"]
    browsed = ok_data(shop.get(f"{API}/browse", {"category": "bowls", "limit": 100}))["items"]
    assert "nesting-bowl" in {item["id"] for item in browsed}
    assert not {item["id"] for item in browsed} & {"nesting-bowl-small", "nesting-bowl-medium", "nesting-bowl-large"}
    assert Product.objects.filter(variant_of__isnull=False).count() == 9


def test_openapi_and_pactspec_describe_the_variants(shop):
    openapi = document(shop, "/.well-known/agents/openapi.json")
    detail = next(operation for path in openapi["paths"].values() for operation in path.values()
                  if isinstance(operation, dict) and operation.get("operationId") == "detail")
    data = detail["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["data"]
    assert data["properties"]["variants"]["items"]["required"] == ["id", "attributes"]
    pactspec = document(shop, "/.well-known/pactspec.json")
    skill = next(s for s in pactspec["skills"] if s["id"] == "detail")
    assert set(skill["outputSchema"]["properties"]["variants"]["items"]["properties"]) >= {
        "id", "attributes", "price", "stock"}


def test_agents_json_and_the_a2a_card_tell_agents_of_variants(shop):
    agents = document(shop, "/.well-known/agents.json")
    capabilities = {c["name"]: c for c in agents["capabilities"]}
    assert "variants" in capabilities["detail"]["description"]
    assert "variants" in capabilities["cart.add"]["params"]["item_id"]["description"]
    Draft7Validator(json.loads(CANONICAL_SCHEMA.read_text())).validate(agents)
    card = document(shop, "/.well-known/agent-card.json")
    assert "variants" in next(s for s in card["skills"] if s["id"] == "detail")["description"]


# A product with variants offers what its active variants offer, and nothing of its own.


def planter_everywhere(shop):
    """round-planter as detail, search and browse show it: (price, stock, in_stock) each."""
    detail = ok_data(shop.get(f"{API}/detail/round-planter"))
    [found] = [item for item in ok_data(shop.get(f"{API}/search", {"q": "round planter"}))["results"]
               if item["id"] == "round-planter"]
    [browsed] = [item for item in ok_data(shop.get(f"{API}/browse", {"category": "planters", "limit": 100}))["items"]
                 if item["id"] == "round-planter"]
    return ((detail["price"], detail["stock"], detail["in_stock"]), (found["price"], found["in_stock"]),
            (browsed["price"], browsed["in_stock"]))


def test_a_parent_shows_the_stock_and_price_its_variants_offer_as_they_sell_out(shop):
    assert planter_everywhere(shop) == ((18, 45, True), (18, True), (18, True))
    Product.objects.filter(public_id="round-planter-small").update(stock=0)  # sold out: medium is the cheapest left
    assert planter_everywhere(shop) == ((28, 21, True), (28, True), (28, True))
    Product.objects.filter(public_id__startswith="round-planter-").update(stock=0)
    assert planter_everywhere(shop) == ((18, 0, False), (18, False), (18, False))
    assert ok_data(shop.get(f"{API}/detail/round-planter"))["stock_status"] == "out_of_stock"


def test_a_parent_whose_variants_are_all_withdrawn_is_not_for_sale_on_its_own(shop):
    Product.objects.filter(public_id__startswith="round-planter-").update(is_active=False)
    detail = ok_data(shop.get(f"{API}/detail/round-planter"))
    assert (detail["variants"], detail["stock"], detail["in_stock"]) == ([], 0, False)
    shop.start_session(agent_name="test")
    assert_error(shop.post(f"{API}/cart/add", {"item_id": "round-planter", "quantity": 1}), 400, "variant_required")


def test_withdrawing_a_parent_withdraws_its_variants(shop):
    shop.start_session(agent_name="test")
    ok_data(shop.post(f"{API}/cart/add", {"item_id": "round-planter-large", "quantity": 1}))
    parent = Product.objects.get(public_id="round-planter")
    parent.is_active = False
    parent.save()

    assert_error(shop.get(f"{API}/detail/round-planter-small"), 404, "unknown_item")
    assert_error(shop.post(f"{API}/cart/add", {"item_id": "round-planter-small", "quantity": 1}), 404, "unknown_item")
    assert_error(shop.put(f"{API}/cart/update", {"item_id": "round-planter-small", "quantity": 1}), 404,
                 "unknown_item")  # not in the cart, and no longer for sale
    [line] = ok_data(shop.get(f"{API}/cart/view"))["items"]
    assert (line["item_id"], line["available"], line["in_stock"]) == ("round-planter-large", 0, False)
    assert_error(shop.post(f"{API}/checkout"), 400, "insufficient_stock")
    ok_data(shop.delete(f"{API}/cart/remove", {"item_id": "round-planter-large"}))  # still removable


def test_variants_follow_their_parent_to_another_category(shop):
    parent = Product.objects.get(public_id="round-planter")
    parent.category = Product.objects.get(public_id="nesting-bowl").category
    parent.save()
    assert {ok_data(shop.get(f"{API}/detail/{item}"))["category"] for item in
            ("round-planter", "round-planter-small", "round-planter-large")} == {parent.category.slug}


def test_a_product_in_another_currency_than_the_shops_is_refused(shop):
    mug = Product.objects.filter(variant_of=None).first()
    mug.currency = "EUR"
    with pytest.raises(ValidationError) as refused:
        mug.full_clean()
    assert refused.value.message_dict == {"currency": ["The shop sells in USD only."]}


def test_price_sorts_order_a_product_with_variants_by_the_price_it_shows(shop):
    def planters_by_price():
        items = ok_data(shop.get(f"{API}/browse", {"category": "planters", "sort": "price_asc", "limit": 100}))["items"]
        return [(item["id"], item["price"]) for item in items]

    shown = planters_by_price()
    assert [price for _, price in shown] == sorted(price for _, price in shown)
    Product.objects.filter(public_id__in=["round-planter-small", "round-planter-medium"]).update(stock=0)
    shown = planters_by_price()
    assert ("round-planter", 42) in shown  # only the large size is left
    assert [price for _, price in shown] == sorted(price for _, price in shown)
