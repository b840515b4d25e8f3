"""Lines of an agent's basket that outlive their items (issue 39, items 1-4), in a shop whose
provider has no code for it: an item unlisted, deleted, repriced or oversold since the agent saw
its cart. The app names each change the agent did not make and refuses what is no longer listed;
the shop lets the agent lower and remove any line it holds."""
from django.test import LiveServerTestCase

from agents_protocol.testing import AgentClient, reset_config_cache, reset_rate_limits
from store.models import BasketLine, Item
from store.tests.test_agents_over_http import make_items


class StaleLineTests(LiveServerTestCase):
    serialized_rollback = True

    def setUp(self):
        reset_config_cache()
        reset_rate_limits()
        make_items()
        self.agent = AgentClient(self.live_server_url)
        self.agent.start_session(agent_name="northwind-test")

    def add(self, sku, quantity=1):
        return self.agent.call("cart.add", item_id=sku, quantity=quantity).data()

    def test_an_unlisted_item_is_refused_at_checkout_and_its_line_can_be_lowered_and_removed(self):
        self.add("BW-2", 3)
        self.add("KN-8")
        Item.objects.filter(sku="BW-2").update(listed=False)

        refused = self.agent.call("checkout").error(400, "insufficient_stock")
        self.assertEqual(refused["error"], "Mixing bowl (BW-2) is no longer for sale; cart.remove it before checking out.")
        self.assertEqual(self.agent.call("cart.update", item_id="BW-2", quantity=1).data()["quantity"], 1)
        self.agent.call("cart.remove", item_id="BW-2").data()
        self.assertEqual([line["id"] for line in self.agent.call("cart.view").data()["items"]], ["KN-8"])
        self.assertIn("checkout_url", self.agent.call("checkout").data())

    def test_a_deleted_item_is_named_at_checkout_with_the_new_subtotal(self):
        self.add("KN-8")
        self.assertEqual(self.add("BW-2")["cart"]["subtotal"], 93.0)
        BasketLine.objects.filter(item__sku="BW-2").delete()  # its line goes with it (PROTECT)
        Item.objects.filter(sku="BW-2").delete()

        self.assertEqual(self.agent.call("checkout").data()["notices"], [
            "Mixing bowl (BW-2) is no longer in the cart: the shop removed it.",
            "The subtotal is now 64.00 EUR, not 93.00.",
        ])

    def test_a_price_changed_since_the_cart_was_seen_is_named_in_cart_view_and_at_checkout(self):
        self.add("BW-2", 2)
        Item.objects.filter(sku="BW-2").update(unit_price_cents=3100)
        self.assertEqual(self.agent.call("cart.view").data()["notices"], [
            "The price of Mixing bowl (BW-2) changed from 29.00 to 31.00 EUR since you last saw the cart.",
            "The subtotal is now 62.00 EUR, not 58.00.",
        ])
        Item.objects.filter(sku="BW-2").update(unit_price_cents=3000)
        self.assertEqual(self.agent.call("checkout").data()["notices"], [
            "The price of Mixing bowl (BW-2) changed from 31.00 to 30.00 EUR since you last saw the cart.",
            "The subtotal is now 60.00 EUR, not 62.00.",
        ])

    def test_checkout_says_when_a_line_is_above_the_stock_on_hand_now(self):
        self.add("KN-8", 3)
        Item.objects.filter(sku="KN-8").update(quantity_on_hand=1)
        self.assertEqual(self.agent.call("checkout").data()["notices"], [
            "Only 1 of Chef's knife 8in (KN-8) are in stock now but the cart holds 3: the shop does not hold stock "
            "for a cart, so your human may be unable to pay for all of them."])
