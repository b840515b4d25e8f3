"""Pluggable payment: the checkout page charges through the backend named in
settings.SHOP_PAYMENT_BACKEND (a dotted path to a PaymentBackend subclass).

`confirm_order` calls `charge` as the last step inside its database transaction, after
the stock was taken: an approval commits the order, a decline or a pending payment rolls
everything back (the order stays open for another attempt). A
backend for a real gateway should authorize there and capture once the order is
committed, so a failed commit never leaves money taken.
"""
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.utils.module_loading import import_string


@dataclass(frozen=True)
class Customer:
    name: str
    email: str
    shipping_address: str
    card_number: str = ""  # digits only, typed on the page when the backend asks for it; never stored


@dataclass(frozen=True)
class PaymentResult:
    approved: bool
    reference: str  # the backend's id for the payment, kept on the order
    message: str  # one sentence for the human when declined or pending
    pending: bool = False  # neither approved nor declined yet: the order stays pending


class PaymentBackend:
    notice = ""  # shown to the human next to the Confirm button
    takes_card_number = False  # True: the page asks for a card number and passes it in customer.card_number

    def charge(self, order, customer):
        """Charge `order.subtotal` in `order.currency`; returns a PaymentResult."""
        raise NotImplementedError


class DemoPaymentBackend(PaymentBackend):
    """No money moves. The outcome is chosen by documented test card numbers (docs/checkout.md):
    a blank or any other valid card number approves."""

    DECLINE_CARD = "4000000000000002"
    PENDING_CARD = "4000000000003063"
    takes_card_number = True
    notice = (
        "Demo payment: nothing is charged. Leave the card number blank or use 4242 4242 4242 4242 to approve; "
        "4000 0000 0000 0002 is declined; 4000 0000 0000 3063 stays pending."
    )

    def charge(self, order, customer):
        if customer.card_number == self.DECLINE_CARD:
            return PaymentResult(
                approved=False, reference="", message="The demo payment was declined. Nothing was charged."
            )
        if customer.card_number == self.PENDING_CARD:
            return PaymentResult(
                approved=False, pending=True, reference=f"demo_pending_{secrets.token_hex(8)}",
                message="The demo payment is pending: the bank has not answered. Nothing was charged and "
                "the order stays pending; try again or use another card.",
            )
        return PaymentResult(approved=True, reference=f"demo_{secrets.token_hex(8)}", message="")


def get_payment_backend():
    return import_string(settings.SHOP_PAYMENT_BACKEND)()


class TestTokenBackend(DemoPaymentBackend):
    """The demo's UCP payment handler (`mock_payment_handler`): no money moves. A token
    credential's documented tokens choose the outcome (docs/interop.md): `success_token`
    approves, `fail_token` is declined, `pending_token` stays pending; a card credential's
    number follows the demo's test cards. Other tokens are declined."""

    TOKENS = {"success_token": "approve", "fail_token": "decline", "pending_token": "pending"}

    def __init__(self, token):
        self.token = token

    def charge(self, order, customer):
        if self.token is None:  # a card: the demo's test card numbers
            return super().charge(order, customer)
        outcome = self.TOKENS.get(self.token, "decline")
        if outcome == "approve":
            return PaymentResult(approved=True, reference=f"demo_{secrets.token_hex(8)}", message="")
        if outcome == "pending":
            return PaymentResult(approved=False, pending=True, reference=f"demo_pending_{secrets.token_hex(8)}",
                                 message="The demo payment is pending. Nothing was charged.")
        return PaymentResult(approved=False, reference="",
                             message="The demo payment was declined: insufficient funds. Nothing was charged.")
