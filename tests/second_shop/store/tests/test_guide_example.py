from django.test import LiveServerTestCase

from agents_protocol.testing import AgentClient, reset_config_cache, reset_rate_limits
from store.models import Item


class PurchaseTests(LiveServerTestCase):
    serialized_rollback = True  # keep what migrations wrote (the configuration, your capabilities)

    def setUp(self):
        reset_config_cache()
        reset_rate_limits()

    def test_checkout_hands_a_link_to_a_human(self):
        Item.objects.create(sku="KN-8", title="Chef's knife", department="knives",
                            unit_price_cents=6400, quantity_on_hand=3)
        agent = AgentClient(self.live_server_url)
        agent.start_session(agent_name="test")
        agent.call("cart.add", item_id="KN-8", quantity=2).data()
        self.assertTrue(agent.call("checkout").data()["human_handoff"])
