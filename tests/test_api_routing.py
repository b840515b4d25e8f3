"""Routing in process: configured (endpoint, method) pairs, 404/405 envelopes, moves without code changes."""
import pytest

from agents_protocol.config_io import export_config, import_config
from agents_protocol.models import Capability
from catalog.demo import load_demo_catalog
from tests.api_client import (
    API,
    IN_PROCESS_URL,
    SESSION_PATH,
    AgentClient,
    DiscoveringAgent,
    assert_error,
    ok_data,
    purchase_through_agents_json,
)
from tests.factories import make_product

SEED_000_CART_METHODS = {"cart.add": "POST", "cart.view": "GET", "cart.update": "PATCH", "cart.remove": "DELETE"}


@pytest.fixture
def mug():
    return make_product(name="Speckled Mug")


@pytest.fixture
def shopper(site_client, mug):
    """A session holding one mug."""
    client = AgentClient(django_client=site_client)
    client.start_session()
    client.add_to_cart(mug.public_id)
    return client


def sample_params(name, mug):
    return {
        "search": {"q": "speckled"},
        "browse": {"sort": "price_asc"},
        "detail": None,
        "cart.add": {"item_id": mug.public_id},
        "cart.view": None,
        "cart.update": {"item_id": mug.public_id, "quantity": 2},
        "cart.remove": {"item_id": mug.public_id},
        "checkout": None,
        "contact": {"name": "Ada", "email": "ada@example.com", "message": "Hello"},
    }[name]


@pytest.mark.parametrize("name", [
    "search", "browse", "detail", "cart.add", "cart.view", "cart.update", "cart.remove", "checkout", "contact",
])
def test_every_default_capability_answers_at_its_configured_endpoint_and_method(shopper, mug, mailoutbox, name):
    capability = Capability.objects.get(name=name)
    path = capability.endpoint.replace(":id", mug.public_id)
    ok_data(shopper.request(capability.method, path, sample_params(name, mug)))


@pytest.mark.parametrize("name, wrong_method", [
    ("search", "POST"), ("detail", "DELETE"), ("cart.add", "GET"), ("cart.update", "PATCH"),
    ("cart.remove", "POST"), ("checkout", "PUT"), ("contact", "GET"),
])
def test_a_wrong_method_on_a_known_path_is_405_with_allow(shopper, mug, name, wrong_method):
    capability = Capability.objects.get(name=name)
    response = shopper.request(wrong_method, capability.endpoint.replace(":id", mug.public_id))
    assert_error(response, 405, "method_not_allowed")
    assert response.headers["Allow"] == f"{capability.method}, OPTIONS"


def test_the_session_path_allows_post_and_delete_only(http):
    response = http.get(IN_PROCESS_URL + SESSION_PATH, timeout=10)
    assert_error(response, 405, "method_not_allowed")
    assert response.headers["Allow"] == "DELETE, POST, OPTIONS"


@pytest.mark.parametrize("method", ["TRACE", "PROPFIND"])
def test_methods_no_capability_uses_are_405_not_500(http, method):
    response = http.request(method, f"{IN_PROCESS_URL}{API}/search?q=mug", timeout=10)
    assert response.status_code == 405
    assert "GET" in response.headers["Allow"]


@pytest.mark.parametrize("path", [
    API, f"{API}/", f"{API}/teleport", f"{API}/cart", f"{API}/detail/a/b", f"{API}/search/extra",
])
def test_unknown_paths_under_the_api_are_404_envelopes(http, path):
    body = assert_error(http.get(IN_PROCESS_URL + path, timeout=10), 404, "not_found")
    assert "/.well-known/agents.json" in body["error"]


def test_an_endpoint_moved_with_save_moves_the_route_at_once(site_client, mug):
    agent = AgentClient(django_client=site_client)
    ok_data(agent.get(f"{API}/search", {"q": "mug"}))
    search = Capability.objects.get(name="search")
    search.endpoint = f"{API}/find"
    search.save()

    assert_error(agent.get(f"{API}/search", {"q": "mug"}), 404, "not_found")
    assert ok_data(agent.get(f"{API}/find", {"q": "mug"}))["total"] == 1
    assert DiscoveringAgent(django_client=site_client).capability("search")["endpoint"] == f"{API}/find"


def test_a_method_changed_with_save_is_served_at_once(shopper, mug):
    update = Capability.objects.get(name="cart.update")
    update.method = "PATCH"
    update.save()

    response = shopper.put(f"{API}/cart/update", {"item_id": mug.public_id, "quantity": 3})
    assert_error(response, 405, "method_not_allowed")
    assert response.headers["Allow"] == "PATCH, OPTIONS"
    assert ok_data(shopper.request("PATCH", f"{API}/cart/update", {"item_id": mug.public_id, "quantity": 3}))[
        "quantity"] == 3


def test_an_endpoint_moved_in_admin_moves_the_route_at_once(shopper, admin_client):
    checkout = Capability.objects.get(name="checkout")
    form = {
        "name": "checkout", "description": checkout.description, "endpoint": f"{API}/order", "method": "POST",
        "requires_session": "on", "human_handoff": "on", "enabled": "on", "position": str(checkout.position),
        "params-TOTAL_FORMS": "0", "params-INITIAL_FORMS": "0", "params-MIN_NUM_FORMS": "0",
        "params-MAX_NUM_FORMS": "1000",
    }
    response = admin_client.post(f"/admin/agents_protocol/capability/{checkout.pk}/change/", form)
    assert response.status_code == 302

    assert_error(shopper.post(f"{API}/checkout"), 404, "not_found")
    assert ok_data(shopper.post(f"{API}/order"))["human_handoff"] is True


def test_a_disabled_capability_is_no_longer_routed(http):
    Capability.objects.get(name="contact").delete()
    response = http.post(f"{IN_PROCESS_URL}{API}/contact", json={}, timeout=10)
    assert_error(response, 404, "not_found")


@pytest.fixture
def seed_000_layout():
    """Seed 000's layout: one cart path told apart by method, and detail taking ?id=."""
    data = export_config()
    for capability in data["capabilities"]:
        if capability["name"] in SEED_000_CART_METHODS:
            capability["endpoint"] = f"{API}/cart"
            capability["method"] = SEED_000_CART_METHODS[capability["name"]]
        if capability["name"] == "detail":
            capability["endpoint"] = f"{API}/detail"
    import_config(data)


def test_the_seed_000_layout_serves_the_whole_purchase_flow(http, site_client, seed_000_layout):
    load_demo_catalog()
    product, cart, handoff, _ = purchase_through_agents_json(IN_PROCESS_URL, "bowl", site_client)

    assert [(item["item_id"], item["quantity"]) for item in cart["items"]] == [(product["id"], 3)]
    assert http.get(handoff["checkout_url"], timeout=10).status_code == 200


def test_the_seed_000_single_cart_path_tells_capabilities_apart_by_method(site_client, seed_000_layout, mug):
    agent = AgentClient(django_client=site_client)
    agent.start_session()
    cart = f"{API}/cart"

    assert ok_data(agent.post(cart, {"item_id": mug.public_id}))["quantity"] == 1
    assert ok_data(agent.request("PATCH", cart, {"item_id": mug.public_id, "quantity": 5}))["quantity"] == 5
    assert ok_data(agent.get(cart))["items"][0]["quantity"] == 5
    assert ok_data(agent.delete(cart, {"item_id": mug.public_id}))["cart"]["items"] == []
    refused = agent.put(cart, {"item_id": mug.public_id, "quantity": 1})
    assert_error(refused, 405, "method_not_allowed")
    assert refused.headers["Allow"] == "DELETE, GET, PATCH, POST, OPTIONS"
    assert_error(agent.post(f"{API}/cart/add", {"item_id": mug.public_id}), 404, "not_found")


def test_the_seed_000_detail_takes_its_id_from_the_query_string(site_client, seed_000_layout, mug):
    agent = AgentClient(django_client=site_client)
    assert ok_data(agent.get(f"{API}/detail", {"id": mug.public_id}))["name"] == "Speckled Mug"
    assert assert_error(agent.get(f"{API}/detail"), 400, "invalid_params")["fields"] == {
        "id": "This parameter is required."
    }
    assert_error(agent.get(f"{API}/detail/{mug.public_id}"), 404, "not_found")
