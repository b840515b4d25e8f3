"""Variants (sizes, glazes) over HTTP: detail lists them, cart.add takes a variant's id, listings
show the parent only, and every published document describes them."""
import json
from pathlib import Path

import pytest
import requests
from jsonschema import Draft7Validator

from catalog.demo import load_demo_catalog
from catalog.models import Product
from tests.api_client import API, AgentClient, assert_error, ok_data

pytestmark = pytest.mark.django_db

CANONICAL_SCHEMA = Path(__file__).resolve().parents[1] / "agents_protocol" / "schemas" / "agents.schema.json"


@pytest.fixture
def shop(live_server):
    load_demo_catalog()
    return AgentClient(live_server.url)


def document(live_server, path):
    response = requests.get(f"{live_server.url}{path}", timeout=10)
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


def test_openapi_and_pactspec_describe_the_variants(shop, live_server):
    openapi = document(live_server, "/.well-known/agents/openapi.json")
    detail = next(operation for path in openapi["paths"].values() for operation in path.values()
                  if isinstance(operation, dict) and operation.get("operationId") == "detail")
    data = detail["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["data"]
    assert data["properties"]["variants"]["items"]["required"] == ["id", "attributes"]
    pactspec = document(live_server, "/.well-known/pactspec.json")
    skill = next(s for s in pactspec["skills"] if s["id"] == "detail")
    assert set(skill["outputSchema"]["properties"]["variants"]["items"]["properties"]) >= {
        "id", "attributes", "price", "stock"}


def test_agents_json_and_the_a2a_card_tell_agents_of_variants(shop, live_server):
    agents = document(live_server, "/.well-known/agents.json")
    capabilities = {c["name"]: c for c in agents["capabilities"]}
    assert "variants" in capabilities["detail"]["description"]
    assert "variants" in capabilities["cart.add"]["params"]["item_id"]["description"]
    Draft7Validator(json.loads(CANONICAL_SCHEMA.read_text())).validate(agents)
    card = document(live_server, "/.well-known/agent-card.json")
    assert "variants" in next(s for s in card["skills"] if s["id"] == "detail")["description"]
