"""Pluggable payment: the checkout page charges through the backend named in
settings.SHOP_PAYMENT_BACKEND (a dotted path to a PaymentBackend subclass).

`confirm_order` calls `charge` as the last step inside its database transaction, after
the stock was taken: an approval commits the order, a decline rolls everything back. A
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


@dataclass(frozen=True)
class PaymentResult:
    approved: bool
    reference: str  # the backend's id for the payment, kept on the order
    message: str  # one sentence for the human when declined


class PaymentBackend:
    notice = ""  # shown to the human next to the Confirm button

    def charge(self, order, customer):
        """Charge `order.subtotal` in `order.currency`; returns a PaymentResult."""
        raise NotImplementedError


class DemoPaymentBackend(PaymentBackend):
    """No money moves. Approves every payment, except that a name or email containing
    "decline" (any case) is declined, so the decline path can be tried by hand."""

    DECLINE_WORD = "decline"
    notice = (
        "Demo payment: nothing is charged. To see a declined payment, "
        'use a name or email containing "decline".'
    )

    def charge(self, order, customer):
        if self.DECLINE_WORD in f"{customer.name} {customer.email}".lower():
            return PaymentResult(
                approved=False, reference="", message="The demo payment was declined. Nothing was charged."
            )
        return PaymentResult(approved=True, reference=f"demo_{secrets.token_hex(8)}", message="")


def get_payment_backend():
    return import_string(settings.SHOP_PAYMENT_BACKEND)()
