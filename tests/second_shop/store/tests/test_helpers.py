"""The test helpers agents_protocol ships, used the way this shop's tests use them."""
from django.test import TestCase

from agents_protocol.core.defaults import DEFAULT_CAPABILITIES
from agents_protocol.models import Capability
from agents_protocol.testing import (
    AgentClient,
    install_default_config,
    make_agent_session,
    reset_config_cache,
    reset_rate_limits,
)
from store.models import Basket, Item


class HelperTests(TestCase):
    def setUp(self):
        reset_config_cache()
        reset_rate_limits()
        Item.objects.create(sku="BW-2", title="Mixing bowl", department="bowls", unit_price_cents=2900,
                            quantity_on_hand=5)

    def test_a_session_from_the_factory_authenticates_like_a_real_one(self):
        session = make_agent_session(agent_name="factory")
        agent = AgentClient()
        agent.token = session.raw_token
        self.assertEqual(agent.call("cart.add", item_id="BW-2", quantity=2).data()["quantity"], 2)
        self.assertEqual(Basket.objects.get().owner, f"agent:{session.public_id}")

    def test_an_expired_session_from_the_factory_is_refused(self):
        agent = AgentClient()
        agent.token = make_agent_session(ttl_seconds=-1).raw_token
        agent.call("cart.view").error(401, "session_expired")

    def test_sessions_keep_their_baskets_apart(self):
        first, second = AgentClient(), AgentClient()
        first.start_session()
        second.start_session()
        first.call("cart.add", item_id="BW-2", quantity=3).data()
        self.assertEqual(second.call("cart.view").data()["cart_size"], 0)
        self.assertEqual(first.call("cart.view").data()["items"][0]["quantity"], 3)

    def test_install_default_config_restores_the_protocols_defaults(self):
        Capability.objects.filter(name="contact").update(enabled=False)
        install_default_config()
        names = [c["name"] for c in AgentClient().document["capabilities"]]
        # The defaults hold the protocol's capabilities only: a shop's own come from its migrations.
        self.assertEqual(names, [c["name"] for c in DEFAULT_CAPABILITIES])
