"""The pluggable payment backend and the demo backend shipped with the shop."""
from types import SimpleNamespace

import pytest

from cart.forms import is_card_number
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


def customer(name="Ada Lovelace", email="ada@example.com", card_number=""):
    return Customer(name=name, email=email, shipping_address="1 Loom Lane", card_number=card_number)


@pytest.mark.parametrize("card_number", ["", "4242424242424242", "4000000000000010"])
def test_demo_backend_approves_a_blank_or_any_other_card_with_a_reference(card_number):
    result = DemoPaymentBackend().charge(ORDER, customer(card_number=card_number))
    assert result.approved is True
    assert result.reference.startswith("demo_") and len(result.reference) == len("demo_") + 16
    assert result.message == ""


def test_demo_backend_declines_the_decline_test_card():
    result = DemoPaymentBackend().charge(ORDER, customer(card_number="4000000000000002"))
    assert result.approved is False
    assert result.reference == ""
    assert "declined" in result.message


def test_demo_backend_leaves_the_pending_test_card_undecided_with_a_reference():
    result = DemoPaymentBackend().charge(ORDER, customer(card_number="4000000000003063"))
    assert (result.approved, result.pending) == (False, True)
    assert result.reference.startswith("demo_pending_")
    assert "pending" in result.message


def test_a_name_no_longer_chooses_the_outcome():
    assert DemoPaymentBackend().charge(ORDER, customer(name="Decline Demo")).approved is True


def test_demo_backend_tells_the_human_the_test_cards():
    assert "nothing is charged" in DemoPaymentBackend.notice
    assert "4000 0000 0000 0002 is declined" in DemoPaymentBackend.notice
    assert "4000 0000 0000 3063 stays pending" in DemoPaymentBackend.notice
    assert DemoPaymentBackend.takes_card_number and not PaymentBackend.takes_card_number


@pytest.mark.parametrize("digits, valid", [
    ("4242424242424242", True), ("4000000000000002", True), ("4242424242424241", False),
    ("42424242", False), ("4" * 20, False), ("", False), ("٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢", False),
])
def test_card_numbers_are_12_to_19_ascii_digits_passing_luhn(digits, valid):
    assert is_card_number(digits) is valid


def test_the_setting_names_the_backend(settings):
    assert isinstance(get_payment_backend(), DemoPaymentBackend)
    settings.SHOP_PAYMENT_BACKEND = f"{__name__}.AlwaysDeclines"
    assert isinstance(get_payment_backend(), AlwaysDeclines)


def test_the_base_backend_must_be_subclassed():
    with pytest.raises(NotImplementedError):
        PaymentBackend().charge(ORDER, customer())
