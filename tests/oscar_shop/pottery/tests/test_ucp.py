"""A UCP platform checks out at Kiln & Co, an Oscar shop with contrib.oscar and no UCP code of
its own: Oscar's shipping charges (the forked shipping app's Repository) and vouchers make the
totals, and the buyer pays in Oscar's own checkout (continue_url)."""
import json
import uuid
from datetime import timedelta
from decimal import Decimal

from django.contrib.auth.models import AnonymousUser
from django.test import TestCase
from django.utils import timezone
from oscar.core.loading import get_class, get_model

from agents_protocol.checkout.models import CommerceConfig, PaymentHandler
from agents_protocol.contrib.oscar.models import AgentBasket
from agents_protocol.testing import reset_config_cache, reset_rate_limits
from pottery.catalogue import make_shop

Applicator = get_class("offer.applicator", "Applicator")
Repository = get_class("shipping.repository", "Repository")
Benefit = get_model("offer", "Benefit")
Condition = get_model("offer", "Condition")
ConditionalOffer = get_model("offer", "ConditionalOffer")
Country = get_model("address", "Country")
OrderAndItemCharges = get_model("shipping", "OrderAndItemCharges")
ProductClass = get_model("catalogue", "ProductClass")
Range = get_model("offer", "Range")
Voucher = get_model("voucher", "Voucher")

FULFILLMENT, DISCOUNT = "dev.ucp.shopping.fulfillment", "dev.ucp.shopping.discount"
LONDON = {"id": "dest_gb", "first_name": "Ada", "last_name": "Lovelace", "street_address": "1 Kiln Lane",
          "address_locality": "London", "postal_code": "N1 9GU", "address_country": "GB"}


def make_voucher(code, percent, *, items_needed=1, ends_in=timedelta(days=30)):
    """A voucher as Oscar's dashboard makes one: `percent` off everything once the basket holds
    `items_needed` items."""
    everything = Range.objects.create(name=f"Everything for {code}", includes_all_products=True)
    offer = ConditionalOffer.objects.create(
        name=f"{code} offer", offer_type=ConditionalOffer.VOUCHER,
        condition=Condition.objects.create(range=everything, type=Condition.COUNT, value=items_needed),
        benefit=Benefit.objects.create(range=everything, type=Benefit.PERCENTAGE, value=percent))
    now = timezone.now()
    voucher = Voucher.objects.create(name=f"{percent}% off ({code})", code=code, usage=Voucher.MULTI_USE,
                                     start_datetime=now - timedelta(days=1), end_datetime=now + ends_in)
    voucher.offers.add(offer)
    return voucher


def make_site_offer(percent):
    """An offer Oscar applies to every basket by itself: `percent` off everything."""
    everything = Range.objects.create(name="Everything on sale", includes_all_products=True)
    return ConditionalOffer.objects.create(
        name=f"Kiln sale: {percent}% off", offer_type=ConditionalOffer.SITE,
        condition=Condition.objects.create(range=everything, type=Condition.COUNT, value=1),
        benefit=Benefit.objects.create(range=everything, type=Benefit.PERCENTAGE, value=percent))


def make_charge(name, per_order, per_item, *countries):
    charge = OrderAndItemCharges.objects.create(name=name, price_per_order=Decimal(per_order),
                                                price_per_item=Decimal(per_item))
    charge.countries.set(Country.objects.filter(iso_3166_1_a2__in=countries))
    return charge


def total(answer, kind="total"):
    return next(t["amount"] for t in answer["totals"] if t["type"] == kind)


def fulfillment(option=None, destination=LONDON):
    method = {"type": "shipping", "destinations": [destination], "selected_destination_id": destination["id"]}
    if option:
        method["groups"] = [{"selected_option_id": option}]
    return {"methods": [method]}


def options_of(answer):
    return [(o["id"], total(o)) for o in answer["fulfillment"]["methods"][0]["groups"][0]["options"]]


class UcpCheckoutTests(TestCase):
    def setUp(self):
        reset_config_cache()
        reset_rate_limits()
        self.products = make_shop()
        Country.objects.update_or_create(iso_3166_1_a2="FR", defaults={
            "iso_3166_1_a3": "FRA", "iso_3166_1_numeric": "250", "printable_name": "France", "name": "France",
            "is_shipping_country": True})
        CommerceConfig.objects.update_or_create(pk=1, defaults={"ucp_enabled": True})
        PaymentHandler.objects.create(handler_id="google_pay", name="com.google.pay",
                                      spec="https://pay.google.com/gp/p/ucp/2026-01-11/",
                                      config_schema="https://pay.google.com/gp/p/ucp/2026-01-11/schemas/config.json")

    def send(self, method, path, body):
        headers = {"idempotency-key": str(uuid.uuid4()), "request-id": str(uuid.uuid4())}
        response = getattr(self.client, method)(path, data=json.dumps(body), content_type="application/json",
                                                headers=headers)
        self.assertLess(response.status_code, 300, response.content)
        return response.json()

    def create(self, **extra):
        return self.send("post", "/checkout-sessions", {
            "currency": "GBP", "line_items": [{"item": {"id": "BOWL-TEN", "title": "Bowl"}, "quantity": 2}],
            "payment": {"instruments": []}, **extra})

    def update(self, answer, **changes):
        body = {"id": answer["id"], "currency": "GBP", "payment": {"instruments": []},
                "line_items": [{"item": {"id": line["item"]["id"], "title": line["item"]["title"]},
                                "quantity": line["quantity"]} for line in answer["line_items"]], **changes}
        return self.send("put", f"/checkout-sessions/{answer['id']}", body)

    def agent_basket(self):
        basket = AgentBasket.objects.get().basket
        basket.strategy = get_class("partner.strategy", "Selector")().strategy()
        return basket

    def declared(self):
        return {c["name"] for c in self.client.get("/.well-known/ucp").json()["ucp"]["capabilities"]}

    def test_the_profile_declares_fulfillment_and_discount_only_when_the_shop_has_them(self):
        self.assertEqual(self.declared() & {FULFILLMENT, DISCOUNT}, {FULFILLMENT})  # stoneware ships, no voucher

        make_voucher("OLD", 10, ends_in=timedelta(days=-1))
        self.assertNotIn(DISCOUNT, self.declared())
        make_voucher("KILN10", 10)
        self.assertIn(DISCOUNT, self.declared())

        ProductClass.objects.update(requires_shipping=False)
        self.assertEqual(self.declared() & {FULFILLMENT, DISCOUNT}, {DISCOUNT})
        self.assertNotIn("fulfillment", self.create(fulfillment=fulfillment()))

    def test_a_shipping_charge_and_a_voucher_make_the_total_oscar_makes(self):
        make_charge("Royal Mail", "3.00", "1.00")
        make_charge("Courier", "9.50", "0.00", "GB")
        make_charge("Colissimo", "12.00", "0.00", "FR")
        make_voucher("KILN10", 10)

        answer = self.create(fulfillment=fulfillment())
        self.assertEqual(answer["status"], "incomplete")
        # Two bowls of 20.00 + 20 % VAT: the Courier serves GB only, Colissimo France only.
        self.assertEqual(options_of(answer), [("courier", 950), ("royal-mail", 500)])

        answer = self.update(answer, fulfillment=fulfillment("royal-mail"), discounts={"codes": ["kiln10", "NOPE"]})

        self.assertEqual(answer["status"], "ready_for_complete")
        # Oscar reckons the 10 % on prices with VAT and takes it off without VAT: 4.80 + 20 %.
        self.assertEqual([(d["code"], d["title"], d["amount"]) for d in answer["discounts"]["applied"]],
                         [("kiln10", "10% off (KILN10)", 576)])
        self.assertEqual((total(answer, "subtotal"), total(answer, "fulfillment"), total(answer, "discount")),
                         (4800, 500, 576))
        basket = self.agent_basket()
        self.assertEqual(list(basket.vouchers.values_list("code", flat=True)), ["KILN10"])
        self.assertEqual(total(answer), 4724)  # 48.00 + 5.00 − 5.76, as Oscar's own checkout adds it:
        Applicator().apply(basket, AnonymousUser())
        method = next(m for m in Repository().get_shipping_methods(basket) if m.code == "royal-mail")
        self.assertEqual(total(answer), int((basket.total_incl_tax + method.calculate(basket).incl_tax) * 100))

        answer = self.update(answer, fulfillment=fulfillment("colissimo", {**LONDON, "address_country": "FR"}))
        self.assertEqual((options_of(answer), answer["status"]), ([("colissimo", 1200), ("royal-mail", 500)],
                                                                   "ready_for_complete"))
        self.assertEqual(total(answer), 4800 + 1200 - 576)

    def test_a_voucher_the_basket_does_not_qualify_for_is_not_applied_nor_kept(self):
        make_voucher("THREEFOR", 20, items_needed=3)
        make_voucher("KILN10", 10)

        answer = self.create(discounts={"codes": ["THREEFOR", "KILN10"]}, fulfillment=fulfillment())
        self.assertEqual([d["code"] for d in answer["discounts"]["applied"]], ["KILN10"])
        self.assertEqual(list(self.agent_basket().vouchers.values_list("code", flat=True)), ["KILN10"])

        answer = self.update(answer, discounts={"codes": []})
        self.assertEqual((answer["discounts"]["applied"], total(answer)), ([], 4800))
        self.assertFalse(self.agent_basket().vouchers.exists())

    def test_a_site_offer_is_a_discount_without_a_code(self):
        self.assertNotIn(DISCOUNT, self.declared())
        make_site_offer(5)
        self.assertIn(DISCOUNT, self.declared())

        answer = self.create(fulfillment=fulfillment())

        self.assertEqual(answer["discounts"], {"codes": [], "applied": [
            {"automatic": True, "title": "Kiln sale: 5% off", "amount": 288}]})  # 2.40 + 20 %
        self.assertEqual(total(answer), self.oscar_total())
        make_voucher("KILN10", 10)  # Oscar does not combine it with the sale on the same items
        answer = self.update(answer, discounts={"codes": ["KILN10"]})
        self.assertEqual(total(answer, "discount"), sum(d["amount"] for d in answer["discounts"]["applied"]))
        self.assertEqual(total(answer), self.oscar_total())

    def oscar_total(self):
        """What Oscar charges for the agent's basket, before shipping, in pence."""
        basket = self.agent_basket()
        Applicator().apply(basket, AnonymousUser())
        return int(basket.total_incl_tax * 100)

    def test_no_options_where_the_shop_does_not_ship(self):
        make_charge("Royal Mail", "3.00", "1.00", "GB")
        answer = self.create(fulfillment=fulfillment(destination={**LONDON, "address_country": "US"}))
        self.assertEqual((options_of(answer), answer["status"]), ([], "incomplete"))

    def test_completing_hands_the_buyer_oscars_checkout_with_the_voucher_on_the_basket(self):
        make_charge("Royal Mail", "3.00", "1.00")
        make_voucher("KILN10", 10)
        answer = self.create(fulfillment=fulfillment("royal-mail"), discounts={"codes": ["KILN10"]})

        answer = self.send("post", f"/checkout-sessions/{answer['id']}/complete", {
            "payment_data": {"id": "instr_1", "handler_id": "google_pay", "type": "card",
                             "credential": {"type": "PAYMENT_GATEWAY", "token": "opaque"}}})

        self.assertEqual(answer["status"], "requires_escalation")
        self.assertTrue(answer["continue_url"].startswith("http://testserver/"), answer["continue_url"])
        self.assertEqual(self.client.get(answer["continue_url"]).status_code, 302)
        link = AgentBasket.objects.get()
        human_basket = link.checkout_basket
        human_basket.strategy = self.agent_basket().strategy
        self.assertEqual(list(human_basket.vouchers.values_list("code", flat=True)), ["KILN10"])
        Applicator().apply(human_basket, AnonymousUser())
        self.assertEqual(human_basket.total_incl_tax, Decimal("42.24"))  # the UCP subtotal − discount
