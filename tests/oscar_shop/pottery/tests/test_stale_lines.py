"""Lines of an agent's basket that outlive their products (issue 39, items 1-4): hidden, deleted,
repriced or oversold since the agent saw its cart. The agent can lower and remove any line it
holds, checkout refuses what Oscar would sell although hidden, and every change the agent did not
make is a notice naming the line."""
from decimal import Decimal

from oscar.core.loading import get_model

from pottery.tests.helpers import ShopTestCase

Product = get_model("catalogue", "Product")
StockRecord = get_model("partner", "StockRecord")


class StaleLineTests(ShopTestCase):
    def test_a_hidden_product_is_refused_at_checkout_and_its_line_can_be_lowered_and_removed(self):
        agent = self.new_agent()
        agent.call("cart.add", item_id="BOWL-TEN", quantity=3).data()
        agent.call("cart.add", item_id="MUG-CEL-S", quantity=1).data()
        Product.objects.filter(upc="BOWL-TEN").update(is_public=False)
        StockRecord.objects.filter(product__upc="BOWL-TEN").update(num_in_stock=1)

        refused = agent.call("checkout").error(400, "insufficient_stock")
        self.assertEqual(refused["error"],
                         "Tenmoku bowl (BOWL-TEN) is no longer for sale; cart.remove it before checking out.")
        self.assertEqual(agent.call("cart.update", item_id="BOWL-TEN", quantity=1).data()["quantity"], 1)
        agent.call("cart.update", item_id="BOWL-TEN", quantity=2).error(400, "insufficient_stock")
        agent.call("cart.remove", item_id="BOWL-TEN").data()
        self.assertEqual([line["id"] for line in agent.call("cart.view").data()["items"]], ["MUG-CEL-S"])
        self.assertNotIn("notices", agent.call("checkout").data())

    def test_a_deleted_product_is_named_at_checkout_with_the_new_total(self):
        agent = self.new_agent()
        agent.call("cart.add", item_id="BOWL-TEN", quantity=1).data()
        self.assertEqual(agent.call("cart.add", item_id="MUG-CEL-S", quantity=1).data()["cart"]["subtotal"], 36.0)
        Product.objects.get(upc="MUG-CEL-S").delete()

        self.assertEqual(agent.call("checkout").data()["notices"], [
            "Celadon mug, Small (MUG-CEL-S) is no longer in the cart: the shop removed it.",
            "The subtotal is now 24.00 GBP, not 36.00.",
        ])

    def test_a_price_changed_since_the_cart_was_seen_is_named_in_cart_view(self):
        agent = self.new_agent()
        agent.call("cart.add", item_id="BOWL-TEN", quantity=2).data()
        StockRecord.objects.filter(product__upc="BOWL-TEN").update(price=Decimal("25.00"))  # 30.00 with VAT

        self.assertEqual(agent.call("cart.view").data()["notices"], [
            "The price of Tenmoku bowl (BOWL-TEN) changed from 24.00 to 30.00 GBP since you last saw the cart.",
            "The subtotal is now 60.00 GBP, not 48.00.",
        ])

    def test_baskets_reserve_no_stock_and_checkout_says_what_is_in_stock_now(self):
        # Four of the large mug: five agents each add one, as Oscar accepts (docs/integration.md).
        agents = [self.new_agent() for _ in range(5)]
        for agent in agents:
            agent.call("cart.add", item_id="MUG-CEL-L", quantity=1).data()
        first = agents[0]
        first.call("cart.update", item_id="MUG-CEL-L", quantity=3).data()
        StockRecord.objects.filter(product__upc="MUG-CEL-L").update(num_in_stock=2)

        refused = first.call("checkout").error(400, "insufficient_stock")
        self.assertIn("Celadon mug, Large", refused["error"])
        self.assertIn("(asked for 3)", refused["error"])
        self.assertEqual(first.call("cart.update", item_id="MUG-CEL-L", quantity=2).data()["quantity"], 2)
        self.assertIn("checkout_url", first.call("checkout").data())
