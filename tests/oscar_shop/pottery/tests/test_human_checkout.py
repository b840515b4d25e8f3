"""A human finishes the agent's checkout in Oscar's own checkout, in headless Chromium (Debian's
/usr/bin/chromium, driven by Playwright): as a guest, signing in on the way (Oscar merges the
baskets) and already signed in. Each time order.status turns "confirmed" with Oscar's order."""
from decimal import Decimal

from oscar.core.loading import get_model
from playwright.sync_api import expect

from agents_protocol.contrib.oscar.models import AgentBasket
from pottery.tests.helpers import PASSWORD, BrowserTestCase

Order = get_model("order", "Order")


class HumanCheckoutTests(BrowserTestCase):
    def test_a_guest_completes_oscars_checkout_and_the_order_is_confirmed(self):
        agent = self.new_agent()
        handoff = self.checkout(agent, ("MUG-CEL-S", 2), ("BOWL-TEN", 1))

        self.page.goto(handoff["checkout_url"])
        self.page.fill("#id_username", "ada@example.com")
        self.page.check("input[name=options][value=anonymous]")
        self.page.click("form button[type=submit]")
        number = self.finish_checkout()

        order = Order.objects.get(number=number)
        self.assertEqual((order.guest_email, order.user), ("ada@example.com", None))
        self.assertEqual(sorted((line.upc, line.quantity) for line in order.lines.all()),
                         [("BOWL-TEN", 1), ("MUG-CEL-S", 2)])
        self.assertEqual(order.total_incl_tax, Decimal("48.00"))
        self.assert_confirmed(agent, handoff, order)
        again = self.page.goto(handoff["checkout_url"])
        self.assertEqual(again.status, 410)
        expect(self.page.locator(".agents-link-closed")).to_have_text("This checkout link has already been used.")

    def test_a_customer_who_signs_in_during_checkout_places_the_agents_order(self):
        customer = self.make_customer()
        agent = self.new_agent()
        handoff = self.checkout(agent, ("MUG-CEL-L", 1))

        self.page.goto(handoff["checkout_url"])
        self.page.fill("#id_username", customer.email)
        self.page.check("input[name=options][value=existing]")
        self.page.fill("#id_password", PASSWORD)
        self.page.click("form button[type=submit]")
        number = self.finish_checkout()

        order = Order.objects.get(number=number)
        self.assertEqual(order.user, customer)
        (agents_basket,) = AgentBasket.objects.all()
        self.assertNotEqual(order.basket_id, agents_basket.basket_id)  # Oscar merged it into the customer's
        self.assertEqual([(line.upc, line.quantity) for line in order.lines.all()], [("MUG-CEL-L", 1)])
        self.assert_confirmed(agent, handoff, order)

    def test_a_signed_in_customer_gets_the_agents_lines_in_their_own_basket(self):
        customer = self.make_customer()
        self.sign_in(customer)
        agent = self.new_agent()
        handoff = self.checkout(agent, ("BOWL-TEN", 2))

        self.page.goto(handoff["checkout_url"])
        number = self.finish_checkout()

        order = Order.objects.get(number=number)
        self.assertEqual((order.user, order.total_incl_tax), (customer, Decimal("48.00")))
        self.assert_confirmed(agent, handoff, order)

    def finish_checkout(self):
        """From the shipping address to the thank-you page; returns Oscar's order number."""
        self.page.fill("#id_first_name", "Ada")
        self.page.fill("#id_last_name", "Lovelace")
        self.page.fill("#id_line1", "12 Kiln Lane")
        self.page.fill("#id_line4", "Stoke-on-Trent")
        self.page.fill("#id_postcode", "ST1 1AA")
        self.page.click("#new_shipping_address button[type=submit]")
        # One shipping method (Oscar's free shipping) and no payment gateway: Oscar goes on to
        # its payment details page, whose Continue leads to the preview.
        self.page.click("#view_preview")
        self.page.click("#place-order")
        expect(self.page).to_have_url(f"{self.live_server_url}/checkout/thank-you/")
        return Order.objects.order_by("-pk").values_list("number", flat=True).first()

    def assert_confirmed(self, agent, handoff, order):
        expect(self.page.locator("body")).to_contain_text(order.number)
        status = agent.call("order.status", order_id=handoff["order_id"]).data()
        self.assertEqual((status["order_id"], status["status"]), (handoff["order_id"], "confirmed"))
        self.assertEqual((status["order_number"], status["shop_status"]), (order.number, "Pending"))
        self.assertEqual(status["total"], float(order.total_incl_tax))
