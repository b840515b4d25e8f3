"""The route index (agents_protocol/http/routing.py) answers as a scan of the whole table would:
the first matching route in table order with the request's method wins, whether its template has
`:name` segments or not; the others' methods make the Allow of a 405; the shortened templates are
tried only when nothing matches as written."""
from dataclasses import replace

import pytest

from agents_protocol.core.config import current_config
from agents_protocol.http import routing
from agents_protocol.http.routing import MethodNotAllowed, RouteNotFound, resolve

pytestmark = pytest.mark.django_db

API = "/.well-known/agents/api"


def layout(*endpoints):
    """The default configuration with its first capabilities at (endpoint, method), in that order."""
    config = current_config()
    capabilities = [replace(capability, endpoint=endpoint, method=method, enabled=True)
                    for capability, (endpoint, method) in zip(config.capabilities, endpoints)]
    return replace(config, capabilities=tuple(capabilities))


def names(config):
    return [capability.name for capability in config.capabilities]


def test_a_template_with_a_segment_earlier_in_the_table_wins_over_a_literal_one():
    config = layout((f"{API}/item/:id", "GET"), (f"{API}/item/special", "GET"))
    first, _ = names(config)
    found = resolve(config, f"{API}/item/special", "GET")
    assert found.route.name == first and dict(found.path_params) == {"id": "special"}
    assert resolve(config, f"{API}/item/other/", "GET").route.name == first


def test_a_literal_template_earlier_in_the_table_wins_over_one_with_a_segment():
    config = layout((f"{API}/item/special", "GET"), (f"{API}/item/:id", "GET"))
    first, second = names(config)
    assert resolve(config, f"{API}/item/special", "GET").route.name == first
    assert resolve(config, f"{API}/item/special/", "GET").route.name == first
    assert resolve(config, f"{API}/item/other", "GET").route.name == second


def test_the_allow_of_a_405_joins_the_methods_of_every_kind_of_template():
    config = layout((f"{API}/item/:id", "PATCH"), (f"{API}/item/special", "POST"), (f"{API}/item/special/", "PUT"))
    with pytest.raises(MethodNotAllowed) as refused:
        resolve(config, f"{API}/item/special/", "GET")
    assert refused.value.allowed == ["PATCH", "POST", "PUT"]
    with pytest.raises(MethodNotAllowed) as refused:
        resolve(config, f"{API}/item/special//", "GET")  # only the template written with a slash matches
    assert refused.value.allowed == ["PUT"]


def test_the_shortened_template_answers_only_when_nothing_matches_as_written():
    config = layout((f"{API}/item/:id", "POST"), (f"{API}/item", "PUT"), (f"{API}/thing/:id", "GET"))
    *_, third = names(config)
    with pytest.raises(MethodNotAllowed) as refused:  # /item as written is the PUT route's
        resolve(config, f"{API}/item", "POST")
    assert refused.value.allowed == ["PUT"]
    found = resolve(config, f"{API}/thing", "GET")
    assert found.route.name == third and dict(found.path_params) == {}
    with pytest.raises(RouteNotFound):
        resolve(config, f"{API}/thing/a/b", "GET")


def test_path_parameters_are_read_only_since_answers_are_shared():
    config = layout((f"{API}/item/:id", "GET"), (f"{API}/item/special", "POST"))
    found = resolve(config, f"{API}/item/special", "GET")
    assert resolve(config, f"{API}/item/special", "GET") is found  # worked out once per snapshot
    with pytest.raises(TypeError):
        found.path_params["id"] = "changed"


def test_paths_outside_the_prefix_are_api_paths_only_when_a_template_matches():
    config = layout(("/.well-known/shop/:id", "GET"), ("/.well-known/cart", "POST"))
    assert routing.is_api_path(config, "/.well-known/shop/x")
    assert routing.is_api_path(config, "/.well-known/shop")  # shortened
    assert routing.is_api_path(config, "/.well-known/cart/")
    assert not routing.is_api_path(config, "/.well-known/carts")
    assert not routing.is_api_path(config, "/.well-known/shop/x/y")
