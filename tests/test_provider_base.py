"""A shop's provider subclasses ShopProvider and overrides only what the shop supports.

The provider here implements search and item_detail alone: those are served (in process), every
other capability answers 501 not_implemented in the envelope, check W002 names the enabled
ones, and a method the base class gains later breaks nothing.
"""
import pytest
from django.core.checks import run_checks
from django.test import override_settings

from acme.agents import AcmeProvider
from agents_protocol import checks
from agents_protocol.core.errors import not_implemented
from agents_protocol.core.provider import ItemPage, ShopProvider, base_methods, get_provider, implements
from agents_protocol.models import Capability
from cart.models import Cart
from tests.api_client import API, AgentClient, assert_error, ok_data

pytestmark = pytest.mark.django_db

VASE = {"id": "vase-7", "name": "Tall vase"}


class SearchAndDetailProvider(ShopProvider):
    # The app passes every argument but context by keyword: any order of them works.
    def search(self, context, *, limit, query, page):
        return ItemPage([{**VASE, "query": query}], 1)

    def item_detail(self, context, item_id):
        return {**VASE, "description": "Stoneware"} if item_id == VASE["id"] else None


class MisdeclaredProvider(ShopProvider):
    def search(self, context, q, page):
        return ItemPage([], 0)


UNIMPLEMENTED = {
    "browse": ("GET", "/browse", None),
    "cart.add": ("POST", "/cart/add", {"item_id": "vase-7", "quantity": 1}),
    "cart.view": ("GET", "/cart/view", None),
    "cart.update": ("PUT", "/cart/update", {"item_id": "vase-7", "quantity": 2}),
    "cart.remove": ("DELETE", "/cart/remove", {"item_id": "vase-7"}),
    "checkout": ("POST", "/checkout", None),
    "order.status": ("GET", "/order/status", None),
    "contact": ("POST", "/contact", {"name": "Ann", "email": "ann@example.com", "message": "Hello"}),
}


def use_provider(settings, provider_class):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "PROVIDER": f"{__name__}.{provider_class.__name__}"}


@pytest.fixture
def search_and_detail_only(settings):
    use_provider(settings, SearchAndDetailProvider)


def test_changing_the_setting_swaps_the_provider_and_restoring_it_swaps_it_back(settings):
    assert isinstance(get_provider(), AcmeProvider)
    with override_settings(AGENTS_PROTOCOL={**settings.AGENTS_PROTOCOL,
                                            "PROVIDER": f"{__name__}.SearchAndDetailProvider"}):
        assert isinstance(get_provider(), SearchAndDetailProvider)
    assert isinstance(get_provider(), AcmeProvider)


def w002_capabilities():
    return sorted(message.msg.split("'")[1] for message in run_checks(databases=["default"])
                  if message.id == "agents_protocol.W002")


def test_the_methods_it_overrides_are_served(site_client, search_and_detail_only):
    agent = AgentClient(django_client=site_client)
    found = ok_data(agent.get(f"{API}/search", {"q": "vase", "limit": 5}))
    assert found["results"] == [{**VASE, "query": "vase"}] and found["total"] == 1
    assert ok_data(agent.get(f"{API}/detail/vase-7"))["description"] == "Stoneware"
    assert_error(agent.get(f"{API}/detail/bowl-1"), 404, "unknown_item")


@pytest.mark.parametrize("capability", sorted(UNIMPLEMENTED))
def test_every_other_capability_answers_501_and_stores_nothing(site_client, search_and_detail_only, capability):
    agent = AgentClient(django_client=site_client)
    agent.start_session(agent_name="test")
    method, path, params = UNIMPLEMENTED[capability]
    body = assert_error(agent.request(method, f"{API}{path}", params), 501, "not_implemented")
    assert body["error"] == f"{capability} is not available on this site."
    assert not Cart.objects.exists()


def test_w002_names_each_enabled_capability_whose_method_is_not_overridden(search_and_detail_only):
    assert w002_capabilities() == sorted(UNIMPLEMENTED)
    Capability.objects.filter(name="contact").update(enabled=False)
    assert "contact" not in w002_capabilities()


def test_the_demo_provider_overrides_every_method_of_the_base_class(settings):
    assert w002_capabilities() == []
    assert checks.provider_interface_problems(AcmeProvider) == []


def test_w002_is_a_database_check():
    assert checks.every_enabled_capability_is_implemented(None) == []


def test_e003_checks_the_overridden_methods_only(settings):
    assert checks.provider_interface_problems(SearchAndDetailProvider) == []
    use_provider(settings, MisdeclaredProvider)
    [error] = checks.provider_configured(None)
    assert error.id == "agents_protocol.E003"
    assert "search(self, context, q, page) cannot be called as search(self, context, *, query, page, limit)." in error.msg


def gift_wrap(self, context, *, item_id, paper):
    raise not_implemented("gift.wrap")


def test_a_method_the_base_class_gains_later_breaks_no_provider(site_client, search_and_detail_only, monkeypatch):
    monkeypatch.setattr(ShopProvider, "gift_wrap", gift_wrap, raising=False)
    assert "gift_wrap" in base_methods()
    for provider_class in (SearchAndDetailProvider, AcmeProvider):
        assert checks.provider_interface_problems(provider_class) == []
        assert not implements(provider_class, "gift_wrap")
    assert [m for m in run_checks(databases=["default"]) if m.id.startswith("agents_protocol.E")] == []
    assert w002_capabilities() == sorted(UNIMPLEMENTED)
    agent = AgentClient(django_client=site_client)
    assert ok_data(agent.get(f"{API}/search", {"q": "vase"}))["total"] == 1
