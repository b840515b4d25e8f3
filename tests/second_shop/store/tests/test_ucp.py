"""A UCP platform checks out at Northwind Goods, whose provider has only the agent API's methods:
with UCP turned on and a payment handler listed, as admin does it, the shop is a UCP business
that hands every payment to its own review page (requires_escalation, continue_url)."""
import json
import uuid

from django.test import TestCase

from agents_protocol.checkout.models import CommerceConfig, PaymentHandler
from agents_protocol.testing import reset_config_cache, reset_rate_limits
from store.models import Item, PendingOrder


class UcpTests(TestCase):
    def setUp(self):
        reset_config_cache()
        reset_rate_limits()
        Item.objects.create(sku="KN-8", title="Chef's knife", department="knives", unit_price_cents=6400,
                            quantity_on_hand=3)
        CommerceConfig.objects.update_or_create(pk=1, defaults={"ucp_enabled": True})
        PaymentHandler.objects.create(handler_id="google_pay", name="com.google.pay",
                                      spec="https://pay.google.com/gp/p/ucp/2026-01-11/",
                                      config_schema="https://pay.google.com/gp/p/ucp/2026-01-11/schemas/config.json")

    def send(self, path, body, method="post"):
        headers = {"idempotency-key": str(uuid.uuid4()), "request-id": str(uuid.uuid4())}
        return getattr(self.client, method)(path, data=json.dumps(body), content_type="application/json",
                                            headers=headers)

    def test_the_profile_names_checkout_and_order_but_no_fulfillment_or_discount(self):
        profile = self.client.get("/.well-known/ucp").json()

        self.assertEqual(profile["ucp"]["services"]["dev.ucp.shopping"]["rest"]["endpoint"], "http://testserver")
        self.assertEqual({c["name"] for c in profile["ucp"]["capabilities"]},
                         {"dev.ucp.shopping.checkout", "dev.ucp.shopping.order", "dev.ucp.shopping.buyer_consent"})
        self.assertEqual([h["id"] for h in profile["payment"]["handlers"]], ["google_pay"])

    def test_a_checkout_is_priced_by_the_shop_and_completed_on_its_review_page(self):
        created = self.send("/checkout-sessions", {
            "currency": "EUR", "line_items": [{"item": {"id": "KN-8", "title": "A knife"}, "quantity": 2}],
            "payment": {"instruments": []}, "discounts": {"codes": ["FREE"]}})
        self.assertEqual(created.status_code, 201, created.content)
        answer = created.json()
        self.assertEqual((answer["status"], answer["totals"][-1]), ("ready_for_complete",
                                                                    {"type": "total", "amount": 12800}))
        self.assertNotIn("fulfillment", answer)

        completed = self.send(f"/checkout-sessions/{answer['id']}/complete", {
            "payment_data": {"id": "instr_1", "handler_id": "google_pay", "type": "card",
                             "credential": {"type": "PAYMENT_GATEWAY", "token": "opaque"}}})

        self.assertEqual(completed.status_code, 200, completed.content)
        answer = completed.json()
        order = PendingOrder.objects.get()
        self.assertEqual(answer["status"], "requires_escalation")
        self.assertEqual(answer["continue_url"], f"http://testserver/review/{order.token}/")
        self.assertEqual(self.client.get(answer["continue_url"]).status_code, 200)
        self.assertEqual(Item.objects.get().quantity_on_hand, 3)  # nothing taken before the human confirms
