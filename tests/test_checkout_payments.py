"""The pluggable payment backend and the demo backend shipped with the shop."""
from types import SimpleNamespace

import pytest

from cart.payments import (
    Customer,
    DemoPaymentBackend,
    PaymentBackend,
    PaymentResult,
    get_payment_backend,
)

ORDER = SimpleNamespace(number="AC-TEST", subtotal="12.00", currency="USD")


class AlwaysDeclines(PaymentBackend):
    def charge(self, order, customer):
        return PaymentResult(approved=False, reference="", message="No.")


def customer(name="Ada Lovelace", email="ada@example.com"):
    return Customer(name=name, email=email, shipping_address="1 Loom Lane")


def test_demo_backend_approves_with_a_reference():
    result = DemoPaymentBackend().charge(ORDER, customer())
    assert result.approved is True
    assert result.reference.startswith("demo_") and len(result.reference) == len("demo_") + 16
    assert result.message == ""


@pytest.mark.parametrize("name, email", [
    ("Decline Me", "ada@example.com"),
    ("Ada", "please-DECLINE@example.com"),
])
def test_demo_backend_declines_when_name_or_email_contains_decline(name, email):
    result = DemoPaymentBackend().charge(ORDER, customer(name, email))
    assert result.approved is False
    assert result.reference == ""
    assert "declined" in result.message


def test_demo_backend_tells_the_human_how_to_see_a_decline():
    assert "nothing is charged" in DemoPaymentBackend.notice
    assert '"decline"' in DemoPaymentBackend.notice


def test_the_setting_names_the_backend(settings):
    assert isinstance(get_payment_backend(), DemoPaymentBackend)
    settings.SHOP_PAYMENT_BACKEND = f"{__name__}.AlwaysDeclines"
    assert isinstance(get_payment_backend(), AlwaysDeclines)


def test_the_base_backend_must_be_subclassed():
    with pytest.raises(NotImplementedError):
        PaymentBackend().charge(ORDER, customer())
