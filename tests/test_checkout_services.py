"""The human side of checkout at the service level: confirm, decline, reduce, cancel, expire."""
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from cart import selectors, services
from cart.models import Cart, Order
from cart.payments import Customer, PaymentBackend, PaymentResult
from catalog.models import Product
from tests.factories import make_agent_session, make_product

pytestmark = pytest.mark.django_db

ADA = Customer(name="Ada Lovelace", email="ada@example.com", shipping_address="1 Loom Lane\nLondon")
DECLINER = Customer(name="Decline Test", email="ada@example.com", shipping_address="1 Loom Lane",
                    card_number="4000000000000002")


class SilentDecliner(PaymentBackend):
    def charge(self, order, customer):
        return PaymentResult(approved=False, reference="", message="")


class CountingBackend(PaymentBackend):
    def __init__(self):
        self.charged = []

    def charge(self, order, customer):
        self.charged.append((order.number, order.subtotal))
        return PaymentResult(approved=True, reference="counted", message="")


@pytest.fixture
def mug():
    return make_product(public_id="speckled-mug", name="Speckled Mug", price=Decimal("24.00"), stock=10)


@pytest.fixture
def saucer():
    return make_product(public_id="saucer", name="Saucer", price=Decimal("7.50"), stock=10)


@pytest.fixture
def order(mug, saucer):
    """A pending order for 2 mugs and 1 saucer (55.50 USD)."""
    agent_session = make_agent_session()
    services.add_item(agent_session, "speckled-mug", 2)
    services.add_item(agent_session, "saucer", 1)
    order, _token = services.start_checkout(agent_session)
    return order


def stock(product):
    return Product.objects.get(pk=product.pk).stock


def expire(order):
    Order.objects.filter(pk=order.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    order.refresh_from_db()


def test_confirm_takes_stock_records_the_customer_and_submits_the_cart(order, mug, saucer):
    services.confirm_order(order, ADA)

    order.refresh_from_db()
    assert order.status == Order.Status.CONFIRMED
    assert order.confirmed_at is not None
    assert (order.customer_name, order.customer_email, order.shipping_address) == (
        "Ada Lovelace", "ada@example.com", "1 Loom Lane\nLondon"
    )
    assert order.payment_reference.startswith("demo_")
    assert (stock(mug), stock(saucer)) == (8, 9)
    assert order.cart.status == Cart.Status.SUBMITTED


def test_confirm_charges_the_frozen_subtotal_through_the_given_backend(order):
    backend = CountingBackend()
    services.confirm_order(order, ADA, backend=backend)
    assert backend.charged == [(order.number, Decimal("55.50"))]
    assert Order.objects.get(pk=order.pk).payment_reference == "counted"


def test_a_confirmed_order_never_changes_again(order, mug):
    services.confirm_order(order, ADA)
    backend = CountingBackend()
    for change in (
        lambda: services.confirm_order(order, DECLINER, backend=backend),
        lambda: services.cancel_order(order),
        lambda: services.reduce_line(order, order.lines.first().pk, 1),
    ):
        with pytest.raises(services.OrderClosed):
            change()
    order.refresh_from_db()
    assert order.status == Order.Status.CONFIRMED
    assert order.customer_name == "Ada Lovelace"
    assert backend.charged == []
    assert stock(mug) == 8


def test_confirm_refuses_an_expired_order_and_takes_no_stock(order, mug):
    expire(order)
    with pytest.raises(services.OrderClosed):
        services.confirm_order(order, ADA)
    assert stock(mug) == 10
    assert Order.objects.get(pk=order.pk).customer_name == ""


def test_a_short_line_refuses_the_whole_confirmation_and_names_the_line(order, mug, saucer):
    Product.objects.filter(pk=mug.pk).update(stock=1)

    with pytest.raises(services.HandoffError) as excinfo:
        services.confirm_order(order, ADA)

    assert excinfo.value.status == 409
    assert "Only 1 of Speckled Mug left, but the order has 2" in excinfo.value.message
    assert "Saucer" not in excinfo.value.message
    assert (stock(mug), stock(saucer)) == (1, 10)  # the saucer's decrement was rolled back
    order.refresh_from_db()
    assert order.status == Order.Status.PENDING
    assert order.customer_name == "Ada Lovelace"  # kept for the form


def test_an_inactive_product_counts_as_out_of_stock(order, saucer):
    Product.objects.filter(pk=saucer.pk).update(is_active=False)
    with pytest.raises(services.HandoffError) as excinfo:
        services.confirm_order(order, ADA)
    assert "Saucer is sold out: remove it or cancel the order." in excinfo.value.message
    assert stock(saucer) == 10


def test_a_declined_payment_is_recorded_takes_no_stock_and_can_be_retried(order, mug):
    with pytest.raises(services.PaymentDeclined) as excinfo:
        services.confirm_order(order, DECLINER)

    assert excinfo.value.status == 402
    assert excinfo.value.message == "The demo payment was declined. Nothing was charged."
    order.refresh_from_db()
    assert order.status == Order.Status.DECLINED
    assert order.customer_name == "Decline Test"
    assert order.confirmed_at is None
    assert stock(mug) == 10

    services.confirm_order(order, ADA)
    assert Order.objects.get(pk=order.pk).status == Order.Status.CONFIRMED
    assert stock(mug) == 8


def test_a_decline_without_a_message_still_tells_the_human(order):
    with pytest.raises(services.PaymentDeclined) as excinfo:
        services.confirm_order(order, ADA, backend=SilentDecliner())
    assert excinfo.value.message == "The payment was declined."


def test_reduce_lowers_a_line_and_the_subtotal(order):
    mug_line = order.lines.get(product_public_id="speckled-mug")
    services.reduce_line(order, mug_line.pk, 1)
    order.refresh_from_db()
    assert order.lines.get(pk=mug_line.pk).quantity == 1
    assert order.subtotal == Decimal("31.50")


def test_reduce_to_zero_removes_the_line(order):
    saucer_line = order.lines.get(product_public_id="saucer")
    services.reduce_line(order, saucer_line.pk, 0)
    order.refresh_from_db()
    assert list(order.lines.values_list("product_public_id", flat=True)) == ["speckled-mug"]
    assert order.subtotal == Decimal("48.00")


def test_the_same_reduce_or_remove_twice_changes_the_order_once_and_succeeds(order):
    # A double click sends the form twice: the second finds it done, not an error for the human.
    mug_line = order.lines.get(product_public_id="speckled-mug")
    saucer_line = order.lines.get(product_public_id="saucer")
    for _click in range(2):
        services.reduce_line(order, mug_line.pk, 1)
        services.reduce_line(order, saucer_line.pk, 0)
    order.refresh_from_db()
    assert list(order.lines.values_list("product_public_id", "quantity")) == [("speckled-mug", 1)]
    assert order.subtotal == Decimal("24.00")


@pytest.mark.parametrize("quantity", [3, -1])
def test_reduce_refuses_anything_but_a_lower_quantity(order, quantity):
    mug_line = order.lines.get(product_public_id="speckled-mug")
    with pytest.raises(services.HandoffError) as excinfo:
        services.reduce_line(order, mug_line.pk, quantity)
    assert excinfo.value.status == 400
    assert order.lines.get(pk=mug_line.pk).quantity == 2


def test_reduce_refuses_a_line_of_another_order(order, mug):
    other_session = make_agent_session()
    services.add_item(other_session, "speckled-mug", 3)
    other_order, _token = services.start_checkout(other_session)
    other_line = other_order.lines.get()
    with pytest.raises(services.HandoffError):
        services.reduce_line(order, other_line.pk, 1)
    assert other_order.lines.get().quantity == 3


def test_reduce_refuses_to_remove_the_last_line(order):
    services.reduce_line(order, order.lines.get(product_public_id="saucer").pk, 0)
    with pytest.raises(services.HandoffError) as excinfo:
        services.reduce_line(order, order.lines.get().pk, 0)
    assert "cancel the order instead" in excinfo.value.message
    assert order.lines.count() == 1


def test_cancel_closes_the_order_for_good(order, mug):
    services.cancel_order(order)
    assert Order.objects.get(pk=order.pk).status == Order.Status.CANCELLED
    with pytest.raises(services.OrderClosed):
        services.confirm_order(order, ADA)
    assert stock(mug) == 10


def test_an_open_order_past_its_deadline_reads_as_expired_until_marked(order):
    expire(order)
    assert order.status == Order.Status.PENDING
    assert order.current_status == Order.Status.EXPIRED
    assert not order.is_open

    services.expire_if_overdue(order)

    assert order.status == Order.Status.EXPIRED


def test_a_confirmed_order_past_its_deadline_stays_confirmed(order):
    services.confirm_order(order, ADA)
    expire(order)
    services.expire_if_overdue(order)
    assert order.current_status == order.status == Order.Status.CONFIRMED


def test_handoff_lines_flag_what_stock_no_longer_covers(order, mug):
    Product.objects.filter(pk=mug.pk).update(stock=1)
    lines = {item.line.product_public_id: item for item in selectors.handoff_lines(order)}
    assert (lines["speckled-mug"].available, lines["speckled-mug"].short) == (1, True)
    assert (lines["saucer"].available, lines["saucer"].short) == (10, False)


def test_session_orders_are_private_to_the_session(order, mug):
    other_session = make_agent_session()
    assert selectors.session_orders(order.agent_session) == [order]
    assert selectors.session_orders(other_session) == []
    assert selectors.find_session_order(order.agent_session, order.number) == order
    assert selectors.find_session_order(other_session, order.number) is None
