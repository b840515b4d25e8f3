"""An agent uses Kiln & Co, an Oscar shop, over real HTTP, knowing only its agents.json."""
from decimal import Decimal
from urllib.parse import urlsplit

from django.test import override_settings
from oscar.core.loading import get_model

from agents_protocol.contrib.oscar.models import AgentBasket
from pottery.tests.helpers import ShopTestCase, open_page

Basket = get_model("basket", "Basket")
Partner = get_model("partner", "Partner")
Product = get_model("catalogue", "Product")
StockRecord = get_model("partner", "StockRecord")


class CatalogueTests(ShopTestCase):
    def test_search_lists_products_and_parents_with_prices_from_the_shops_strategy(self):
        agent = self.new_agent()
        results = agent.call("search", q="celadon").data()["results"]
        self.assertEqual([(r["id"], r["name"], r["has_variants"]) for r in results], [("MUG-CEL", "Celadon mug", True)])
        # The forked partner app's strategy adds UK VAT; it prices a parent as its first
        # child, the newest (Large: 15.00 + 20 %), as Oscar's own product page does.
        self.assertEqual((results[0]["price"], results[0]["currency"]), (18.0, "GBP"))
        self.assertIn(b'"price":18.00', agent.call("search", q="celadon").body)
        bowl = agent.call("search", q="tenmoku").data()["results"][0]
        self.assertEqual((bowl["id"], bowl["price"], bowl["in_stock"], bowl["category"]), ("BOWL-TEN", 24.0, True, "bowls"))
        self.assertTrue(bowl["url"].startswith(self.live_server_url + "/catalogue/"), bowl["url"])
        vase = agent.call("search", q="vase").data()["results"][0]
        self.assertEqual((vase["id"], vase["in_stock"]), ("VASE-ASH", False))

    def test_browse_filters_by_category_and_sorts_by_price(self):
        agent = self.new_agent()
        everything = agent.call("browse", sort="price_desc").data()["items"]
        self.assertEqual([i["id"] for i in everything], ["VASE-ASH", "BOWL-TEN", "MUG-CEL"])
        tableware = agent.call("browse", category="tableware", sort="price_asc").data()
        self.assertEqual(([i["id"] for i in tableware["items"]], tableware["total"]), (["MUG-CEL", "BOWL-TEN"], 2))
        agent.call("browse", category="teapots", sort="price_asc").error(404, "unknown_category")

    def test_detail_of_a_parent_lists_its_variants_with_attributes_price_and_stock(self):
        detail = self.new_agent().call("detail", id="MUG-CEL").data()
        self.assertEqual(detail["description"], "A thrown mug in a pale green celadon glaze")
        self.assertEqual(detail["variants"], [
            {"id": "MUG-CEL-S", "name": "Celadon mug, Small", "attributes": {"size": "Small"},
             "price": 12.0, "currency": "GBP", "in_stock": True, "stock": 9},
            {"id": "MUG-CEL-L", "name": "Celadon mug, Large", "attributes": {"size": "Large"},
             "price": 18.0, "currency": "GBP", "in_stock": True, "stock": 4},
        ])

    def test_detail_of_a_variant_and_of_an_unknown_id(self):
        agent = self.new_agent()
        variant = agent.call("detail", id="MUG-CEL-L").data()
        self.assertEqual((variant["name"], variant["price"], variant["stock"]), ("Celadon mug, Large", 18.0, 4))
        self.assertEqual((variant["variant_of"], variant["attributes"]), ("MUG-CEL", {"size": "Large"}))
        self.assertNotIn("variant_of", agent.call("detail", id="BOWL-TEN").data())
        agent.call("detail", id="NO-SUCH").error(404, "unknown_item")

    @override_settings(AGENTS_PROTOCOL_OSCAR={"ITEM_ID": "pk"})
    def test_items_can_be_known_by_primary_key_instead(self):
        agent = self.new_agent()
        bowl = self.products["bowl"]
        self.assertEqual(agent.call("search", q="tenmoku").data()["results"][0]["id"], str(bowl.pk))
        self.assertEqual(agent.call("detail", id=str(bowl.pk)).data()["name"], "Tenmoku bowl")
        agent.call("detail", id="BOWL-TEN").error(404, "unknown_item")
        added = agent.call("cart.add", item_id=str(self.products["small_mug"].pk), quantity=2).data()
        self.assertEqual(added["cart"]["items"][0]["item_id"], str(self.products["small_mug"].pk))


    def test_ids_that_name_no_product_are_unknown_items_by_upc_and_by_primary_key(self):
        agent = self.new_agent()
        odd_ids = ["²", "٣", "9" * 30, "-1", "' OR 1=1 --", "x" * 200, "\u202eMUG-CEL"]
        for item_id_setting in ("upc", "pk"):
            with self.subTest(ITEM_ID=item_id_setting), override_settings(AGENTS_PROTOCOL_OSCAR={"ITEM_ID": item_id_setting}):
                for odd in odd_ids:
                    agent.call("detail", id=odd).error(404, "unknown_item")
                    agent.call("cart.add", item_id=odd, quantity=1).error(404, "unknown_item")
        self.assertEqual(agent.call("cart.view").data()["cart_size"], 0)


    def test_a_product_the_strategy_gives_no_price_is_listed_without_price_or_currency(self):
        # Not as null: the published schemas (MCP's outputSchema, OpenAPI) type both when present.
        Product.objects.create(product_class=self.products["bowl"].product_class, title="Unpriced jug", upc="JUG-UNP")
        agent = self.new_agent()
        (jug,) = agent.call("search", q="unpriced").data()["results"]
        self.assertEqual(jug["id"], "JUG-UNP")
        self.assertNotIn("price", jug)
        self.assertNotIn("currency", jug)
        self.assertNotIn("price", agent.call("detail", id="JUG-UNP").data())

    def test_with_upc_ids_products_and_variants_without_a_upc_are_out_of_reach(self):
        partner = Partner.objects.get()
        jug = Product.objects.create(product_class=self.products["bowl"].product_class, title="Unmarked jug")
        tall = Product.objects.create(structure=Product.CHILD, parent=self.products["mug"], title="Celadon mug, Tall")
        for product in (jug, tall):
            StockRecord.objects.create(product=product, partner=partner, partner_sku=product.title,
                                       price=Decimal("9.00"), price_currency="GBP", num_in_stock=3)
        agent = self.new_agent()
        self.assertEqual(agent.call("search", q="jug").data()["results"], [])
        self.assertEqual([v["id"] for v in agent.call("detail", id="MUG-CEL").data()["variants"]],
                         ["MUG-CEL-S", "MUG-CEL-L"])
        with override_settings(AGENTS_PROTOCOL_OSCAR={"ITEM_ID": "pk"}):
            self.assertEqual([r["id"] for r in agent.call("search", q="jug").data()["results"]], [str(jug.pk)])
            variants = agent.call("detail", id=str(self.products["mug"].pk)).data()["variants"]
            self.assertEqual(variants[-1]["id"], str(tall.pk))


class CartTests(ShopTestCase):
    def test_the_cart_is_an_oscar_basket_priced_by_the_strategy(self):
        agent = self.new_agent()
        added = agent.call("cart.add", item_id="MUG-CEL-S", quantity=2).data()
        self.assertEqual((added["item_id"], added["quantity"], added["cart_size"]), ("MUG-CEL-S", 2, 1))
        agent.call("cart.add", item_id="BOWL-TEN", quantity=1).data()
        agent.call("cart.add", item_id="MUG-CEL-S", quantity=1).data()
        cart = agent.call("cart.view").data()
        self.assertEqual([(i["item_id"], i["quantity"], i["unit_price"], i["line_total"]) for i in cart["items"]],
                         [("MUG-CEL-S", 3, 12.0, 36.0), ("BOWL-TEN", 1, 24.0, 24.0)])
        self.assertEqual((cart["subtotal"], cart["currency"], cart["total_quantity"]), (60.0, "GBP", 4))
        (link,) = AgentBasket.objects.all()
        self.assertEqual(link.basket.num_items, 4)
        self.assertEqual(link.basket.status, Basket.OPEN)

    def test_an_empty_cart_names_the_shops_currency(self):
        agent = self.new_agent()
        self.assertEqual(agent.call("cart.view").data()["currency"], "GBP")
        agent.call("cart.add", item_id="BOWL-TEN", quantity=1).data()
        self.assertEqual(agent.call("cart.remove", item_id="BOWL-TEN").data()["cart"]["currency"], "GBP")

    def test_update_and_remove(self):
        agent = self.new_agent()
        agent.call("cart.add", item_id="MUG-CEL-L", quantity=1).data()
        agent.call("cart.add", item_id="BOWL-TEN", quantity=1).data()
        self.assertEqual(agent.call("cart.update", item_id="MUG-CEL-L", quantity=3).data()["quantity"], 3)
        agent.call("cart.update", item_id="MUG-CEL-L", quantity=5).error(400, "insufficient_stock")
        removed = agent.call("cart.update", item_id="BOWL-TEN", quantity=0).data()
        self.assertEqual((removed["removed"], removed["cart_size"]), (True, 1))
        agent.call("cart.remove", item_id="MUG-CEL-L").data()
        self.assertEqual(agent.call("cart.view").data()["items"], [])
        agent.call("cart.remove", item_id="MUG-CEL-L").error(404, "item_not_in_cart")
        agent.call("cart.update", item_id="BOWL-TEN", quantity=2).error(404, "item_not_in_cart")

    def test_what_oscar_would_refuse_is_refused_and_nothing_is_stored(self):
        agent = self.new_agent()
        agent.call("cart.add", item_id="MUG-CEL", quantity=1).error(400, "variant_required")
        agent.call("cart.add", item_id="VASE-ASH", quantity=1).error(400, "insufficient_stock")
        agent.call("cart.add", item_id="MUG-CEL-L", quantity=5).error(400, "insufficient_stock")
        agent.call("cart.add", item_id="NO-SUCH", quantity=1).error(404, "unknown_item")
        agent.call("cart.add", item_id="BOWL-TEN", quantity=-1).error(400, "invalid_params")  # the app checks it
        self.assertEqual(agent.call("cart.view").data()["cart_size"], 0)
        self.assertFalse(Basket.objects.filter(lines__isnull=False).exists())

    def test_one_session_never_sees_another_sessions_basket(self):
        first, second = self.new_agent(), self.new_agent()
        first.call("cart.add", item_id="BOWL-TEN", quantity=2).data()
        second.call("cart.add", item_id="MUG-CEL-S", quantity=1).data()
        self.assertEqual([i["item_id"] for i in first.call("cart.view").data()["items"]], ["BOWL-TEN"])
        self.assertEqual([i["item_id"] for i in second.call("cart.view").data()["items"]], ["MUG-CEL-S"])
        second.call("cart.remove", item_id="BOWL-TEN").error(404, "item_not_in_cart")
        self.assertEqual(first.call("cart.view").data()["total_quantity"], 2)


class HandoffTests(ShopTestCase):
    def test_checkout_hands_the_basket_to_a_human_and_the_next_add_starts_a_new_one(self):
        agent = self.new_agent()
        handoff = self.checkout(agent, ("BOWL-TEN", 2))
        self.assertTrue(handoff["human_handoff"])
        self.assertTrue(handoff["checkout_url"].startswith(f"{self.live_server_url}/agents/checkout/"), handoff)
        self.assertEqual(agent.call("cart.view").data()["cart_size"], 0)
        self.assertTrue(handoff["order_id"].startswith("ord_"), handoff)  # the app's, for Oscar's order to come
        status = agent.call("order.status", order_id=handoff["order_id"]).data()
        self.assertEqual((status["order_id"], status["status"]), (handoff["order_id"], "pending"))
        agent.call("cart.add", item_id="MUG-CEL-S", quantity=1).data()
        self.assertEqual(AgentBasket.objects.count(), 2)
        orders = agent.call("order.status").data()["orders"]
        self.assertEqual([o["order_id"] for o in orders], [handoff["order_id"]])

    def test_the_link_opens_oscars_checkout_once(self):
        handoff = self.checkout(self.new_agent(), ("BOWL-TEN", 1))
        status, headers, _ = open_page(handoff["checkout_url"])
        self.assertEqual((status, urlsplit(headers["Location"]).path), (302, "/checkout/"))
        self.assertIn("oscar_open_basket=", headers["Set-Cookie"])
        status, _, page = open_page(handoff["checkout_url"])
        self.assertEqual(status, 410)
        self.assertIn("already been used", page)
        self.assertEqual(open_page(f"{self.live_server_url}/agents/checkout/forged/")[0], 410)

    @override_settings(AGENTS_PROTOCOL_OSCAR={"ITEM_ID": "upc", "CHECKOUT_TTL_SECONDS": 0})
    def test_an_expired_link_opens_nothing_and_the_order_is_expired(self):
        agent = self.new_agent()
        handoff = self.checkout(agent, ("BOWL-TEN", 1))
        status, _, page = open_page(handoff["checkout_url"])
        self.assertEqual(status, 410)
        self.assertIn("expired", page)
        self.assertEqual(agent.call("order.status", order_id=handoff["order_id"]).data()["status"], "expired")

    def test_an_empty_cart_or_a_sold_out_line_cannot_be_checked_out(self):
        agent = self.new_agent()
        agent.call("checkout").error(409, "cart_empty")
        agent.call("cart.add", item_id="MUG-CEL-L", quantity=4).data()
        self.products["large_mug"].stockrecords.update(num_in_stock=2)
        agent.call("checkout").error(400, "insufficient_stock")
        self.assertEqual(agent.call("cart.view").data()["total_quantity"], 4)

    def test_order_status_is_the_sessions_own(self):
        owner, other = self.new_agent(), self.new_agent()
        handoff = self.checkout(owner, ("BOWL-TEN", 1))
        other.call("order.status", order_id=handoff["order_id"]).error(404, "unknown_order")
        self.assertEqual(other.call("order.status").data()["orders"], [])

    def test_contact_mails_the_shops_managers(self):
        from django.core import mail

        with override_settings(MANAGERS=[("Kiln", "studio@kiln.example")]):
            sent = self.new_agent().call("contact", name="Ada", email="ada@example.com", message="Do you glaze to order?")
        self.assertTrue(sent.data()["sent"])
        self.assertEqual(mail.outbox[-1].to, ["studio@kiln.example"])
        self.assertEqual(mail.outbox[-1].body, "Do you glaze to order?")


class AmountsTests(ShopTestCase):
    def test_money_is_written_with_two_decimals(self):
        agent = self.new_agent()
        agent.call("cart.add", item_id="MUG-CEL-S", quantity=1).data()
        body = agent.call("cart.view").body
        self.assertIn(b'"subtotal":12.00', body)
        self.assertIn(b'"unit_price":12.00,', body)
        self.assertIn(b'"line_total":12.00}', body)
        self.assertEqual(Decimal(str(agent.call("cart.view").data()["subtotal"])), Decimal("12"))
