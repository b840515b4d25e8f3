import hashlib
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from cart import selectors, services
from cart.models import Cart, CartLine, Order
from cart.services import CartError
from tests.factories import make_agent_session, make_product

pytestmark = pytest.mark.django_db


@pytest.fixture
def agent_session():
    return make_agent_session()


@pytest.fixture
def product():
    return make_product(public_id="speckled-mug", name="Speckled Mug", price=Decimal("24.00"), stock=10)


def assert_cart_error(excinfo, code, status):
    assert excinfo.value.code == code
    assert excinfo.value.status == status
    assert excinfo.value.message.endswith(".")


def test_get_open_cart_returns_the_same_cart_in_shop_currency(agent_session, settings):
    settings.SHOP_CURRENCY = "EUR"
    first = services.get_open_cart(agent_session)
    assert services.get_open_cart(agent_session) == first
    assert first.status == Cart.Status.OPEN
    assert first.currency == "EUR"


def test_add_item_creates_a_line_then_adds_to_it(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 2)
    assert services.add_item(agent_session, "speckled-mug", 3) == 5
    assert CartLine.objects.filter(cart__agent_session=agent_session).count() == 1


def test_add_item_unknown_id_is_unknown_item(agent_session):
    with pytest.raises(CartError) as excinfo:
        services.add_item(agent_session, "no-such-item", 1)
    assert_cart_error(excinfo, "unknown_item", 404)
    assert "no-such-item" in excinfo.value.message


def test_add_item_inactive_product_is_unknown_item(agent_session):
    make_product(public_id="retired-bowl", is_active=False)
    with pytest.raises(CartError) as excinfo:
        services.add_item(agent_session, "retired-bowl", 1)
    assert_cart_error(excinfo, "unknown_item", 404)


@pytest.mark.parametrize("quantity", [0, -1, 1.5, 2.0, "2", None, True])
def test_add_item_rejects_invalid_quantity(agent_session, product, quantity):
    with pytest.raises(CartError) as excinfo:
        services.add_item(agent_session, "speckled-mug", quantity)
    assert_cart_error(excinfo, "invalid_quantity", 400)
    assert not CartLine.objects.exists()


def test_add_item_above_cart_maximum(agent_session, settings):
    settings.CART_MAX_QUANTITY = 5
    make_product(public_id="plate", name="Plate", stock=100)
    services.add_item(agent_session, "plate", 4)
    with pytest.raises(CartError) as excinfo:
        services.add_item(agent_session, "plate", 2)
    assert_cart_error(excinfo, "quantity_above_maximum", 400)
    assert "at most 5" in excinfo.value.message
    assert "already holds 4" in excinfo.value.message
    assert services.add_item(agent_session, "plate", 1) == 5


def test_add_item_beyond_stock_says_how_many_are_available(agent_session):
    make_product(public_id="vase", name="Vase", stock=3)
    services.add_item(agent_session, "vase", 2)
    with pytest.raises(CartError) as excinfo:
        services.add_item(agent_session, "vase", 2)
    assert_cart_error(excinfo, "insufficient_stock", 400)
    assert "Only 3 of Vase are available" in excinfo.value.message
    assert CartLine.objects.get().quantity == 2


def test_add_item_out_of_stock(agent_session):
    make_product(public_id="sold-out", stock=0)
    with pytest.raises(CartError) as excinfo:
        services.add_item(agent_session, "sold-out", 1)
    assert_cart_error(excinfo, "insufficient_stock", 400)
    assert "is out of stock; choose another item." in excinfo.value.message


def test_add_item_reports_stock_when_stock_is_the_tighter_limit(agent_session, settings):
    settings.CART_MAX_QUANTITY = 20
    make_product(public_id="jug", stock=3)
    with pytest.raises(CartError) as excinfo:
        services.add_item(agent_session, "jug", 25)
    assert excinfo.value.code == "insufficient_stock"


def test_add_item_currency_mismatch(agent_session, settings):
    settings.SHOP_CURRENCY = "USD"
    make_product(public_id="euro-cup", currency="EUR")
    with pytest.raises(CartError) as excinfo:
        services.add_item(agent_session, "euro-cup", 1)
    assert_cart_error(excinfo, "currency_mismatch", 400)
    assert not CartLine.objects.exists()


def test_add_item_after_a_checkout_froze_the_cart_starts_a_new_one(agent_session, product):
    """The open cart is found by the statement that claims it: a checkout that froze the cart
    a moment before leaves the add a new cart, never the frozen one."""
    services.add_item(agent_session, "speckled-mug", 1)
    frozen = Cart.objects.get(agent_session=agent_session)
    Cart.objects.filter(pk=frozen.pk).update(status=Cart.Status.FROZEN)
    assert services.add_item(agent_session, "speckled-mug", 2) == 2
    cart = Cart.objects.get(agent_session=agent_session, status=Cart.Status.OPEN)
    assert cart.pk != frozen.pk
    assert list(cart.lines.values_list("quantity", flat=True)) == [2]
    assert list(frozen.lines.values_list("quantity", flat=True)) == [1]


def test_add_item_claims_the_open_cart_it_finds(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 1)
    cart = Cart.objects.get(agent_session=agent_session)
    Cart.objects.filter(pk=cart.pk).update(updated=cart.updated - timedelta(hours=1))
    services.add_item(agent_session, "speckled-mug", 1)
    assert Cart.objects.get(pk=cart.pk).updated > cart.updated - timedelta(minutes=1)


def test_update_item_sets_the_quantity(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 1)
    line = services.update_item(agent_session, "speckled-mug", 7)
    assert line.quantity == 7
    assert CartLine.objects.get().quantity == 7


def test_update_item_to_zero_removes_the_line(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 2)
    assert services.update_item(agent_session, "speckled-mug", 0) is None
    assert not CartLine.objects.exists()


def test_update_item_not_in_cart(agent_session, product):
    with pytest.raises(CartError) as excinfo:
        services.update_item(agent_session, "speckled-mug", 2)
    assert_cart_error(excinfo, "item_not_in_cart", 404)


def test_update_item_unknown_id(agent_session):
    with pytest.raises(CartError) as excinfo:
        services.update_item(agent_session, "no-such-item", 2)
    assert_cart_error(excinfo, "unknown_item", 404)


@pytest.mark.parametrize("quantity", [-1, 1.0, False, "3"])
def test_update_item_rejects_invalid_quantity(agent_session, product, quantity):
    services.add_item(agent_session, "speckled-mug", 2)
    with pytest.raises(CartError) as excinfo:
        services.update_item(agent_session, "speckled-mug", quantity)
    assert_cart_error(excinfo, "invalid_quantity", 400)
    assert CartLine.objects.get().quantity == 2


def test_update_item_respects_maximum_and_stock(agent_session, settings):
    settings.CART_MAX_QUANTITY = 5
    make_product(public_id="plate", stock=100)
    make_product(public_id="vase", stock=3)
    services.add_item(agent_session, "plate", 1)
    services.add_item(agent_session, "vase", 1)
    with pytest.raises(CartError) as above_maximum:
        services.update_item(agent_session, "plate", 6)
    with pytest.raises(CartError) as beyond_stock:
        services.update_item(agent_session, "vase", 4)
    assert above_maximum.value.code == "quantity_above_maximum"
    assert beyond_stock.value.code == "insufficient_stock"
    assert services.update_item(agent_session, "plate", 5).quantity == 5


def test_remove_item(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 2)
    services.remove_item(agent_session, "speckled-mug")
    assert not CartLine.objects.exists()
    with pytest.raises(CartError) as excinfo:
        services.remove_item(agent_session, "speckled-mug")
    assert_cart_error(excinfo, "item_not_in_cart", 404)


def test_remove_item_of_a_retired_product_still_works(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 2)
    product.is_active = False
    product.save()
    services.remove_item(agent_session, "speckled-mug")
    assert not CartLine.objects.exists()


def test_sessions_have_separate_carts(product):
    first, second = make_agent_session(), make_agent_session()
    services.add_item(first, "speckled-mug", 2)
    assert selectors.view_cart(second).cart_size == 0
    assert selectors.view_cart(first).cart_size == 1


def test_view_cart_uses_current_server_prices(agent_session, product):
    make_product(public_id="saucer", name="Saucer", price=Decimal("7.333"), stock=5)
    services.add_item(agent_session, "speckled-mug", 2)
    services.add_item(agent_session, "saucer", 3)
    product.price = Decimal("25.50")
    product.save()

    view = selectors.view_cart(agent_session)

    mug, saucer = view.items
    assert (mug.item_id, mug.name, mug.unit_price, mug.quantity) == ("speckled-mug", "Speckled Mug", Decimal("25.50"), 2)
    assert mug.line_total == Decimal("51.00")
    assert saucer.unit_price == Decimal("7.33")
    assert saucer.line_total == Decimal("21.99")
    assert view.subtotal == Decimal("72.99")
    assert view.currency == "USD"
    assert view.cart_size == 2
    assert view.total_quantity == 5


def test_view_cart_flags_lines_above_current_stock(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 4)
    product.stock = 3
    product.save()
    (item,) = selectors.view_cart(agent_session).items
    assert item.available == 3
    assert item.in_stock is False


def test_view_cart_of_a_new_session_is_empty_and_creates_nothing(agent_session, settings):
    settings.SHOP_CURRENCY = "USD"
    view = selectors.view_cart(agent_session)
    assert view.items == ()
    assert view.subtotal == Decimal("0.00")
    assert (view.currency, view.cart_size, view.total_quantity) == ("USD", 0, 0)
    assert not Cart.objects.exists()


def test_view_cart_query_count_does_not_grow_with_lines(agent_session, django_assert_num_queries):
    for n in range(5):
        make_product(public_id=f"cup-{n}")
        services.add_item(agent_session, f"cup-{n}", 1)
    with django_assert_num_queries(1):
        selectors.view_cart(agent_session)


def test_start_checkout_freezes_the_cart_into_a_pending_order(agent_session, product):
    make_product(public_id="saucer", name="Saucer", price=Decimal("7.50"), stock=5)
    services.add_item(agent_session, "speckled-mug", 2)
    services.add_item(agent_session, "saucer", 1)
    cart = services.get_open_cart(agent_session)
    before = timezone.now()

    order, raw_token = services.start_checkout(agent_session, ttl_seconds=600)

    cart.refresh_from_db()
    assert cart.status == Cart.Status.FROZEN
    assert order.cart == cart
    assert order.agent_session == agent_session
    assert order.status == Order.Status.PENDING
    assert order.subtotal == Decimal("55.50")
    assert order.currency == "USD"
    assert order.number.startswith("AC-") and len(order.number) == 11
    assert order.number[3:].isupper() and order.number[3:].isalnum()
    assert before + timedelta(seconds=600) <= order.expires_at <= timezone.now() + timedelta(seconds=600)
    lines = [(line.product_public_id, line.product_name, line.unit_price, line.quantity) for line in order.lines.all()]
    assert lines == [("speckled-mug", "Speckled Mug", Decimal("24.00"), 2), ("saucer", "Saucer", Decimal("7.50"), 1)]


def test_start_checkout_snapshots_prices(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 1)
    order, _ = services.start_checkout(agent_session)
    product.price = Decimal("99.00")
    product.save()
    order.refresh_from_db()
    assert order.lines.get().unit_price == Decimal("24.00")
    assert order.subtotal == Decimal("24.00")


def test_start_checkout_stores_only_the_hash_of_the_handoff_token(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 1)
    order, raw_token = services.start_checkout(agent_session)
    assert len(raw_token) >= 43
    assert order.handoff_token_hash == hashlib.sha256(raw_token.encode()).hexdigest()
    assert not Order.objects.filter(handoff_token_hash=raw_token).exists()
    assert selectors.find_order_by_handoff_token(raw_token) == order
    assert selectors.find_order_by_handoff_token(raw_token + "x") is None


def test_after_checkout_the_session_gets_a_new_empty_cart(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 1)
    order, _ = services.start_checkout(agent_session)
    new_cart = services.get_open_cart(agent_session)
    assert new_cart != order.cart
    assert selectors.view_cart(agent_session).cart_size == 0
    services.add_item(agent_session, "speckled-mug", 1)
    assert order.cart.lines.get().quantity == 1
    assert new_cart.lines.get().quantity == 1


def test_each_checkout_gets_its_own_number_and_token(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 1)
    first, first_token = services.start_checkout(agent_session)
    services.add_item(agent_session, "speckled-mug", 1)
    second, second_token = services.start_checkout(agent_session)
    assert first.number != second.number
    assert first_token != second_token


def test_start_checkout_of_an_empty_cart(agent_session):
    with pytest.raises(CartError) as excinfo:
        services.start_checkout(agent_session)
    assert_cart_error(excinfo, "cart_empty", 409)
    assert not Order.objects.exists()


def test_start_checkout_refuses_lines_above_current_stock(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 5)
    product.stock = 4
    product.save()
    with pytest.raises(CartError) as excinfo:
        services.start_checkout(agent_session)
    assert_cart_error(excinfo, "insufficient_stock", 400)
    assert "Only 4 of Speckled Mug (speckled-mug) are available but the cart holds 5; cart.update it to 4" in (
        excinfo.value.message)
    assert not Order.objects.exists()
    assert services.get_open_cart(agent_session).lines.get().quantity == 5


def test_start_checkout_refuses_a_product_whose_currency_changed(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 1)
    product.currency = "EUR"
    product.save()
    with pytest.raises(CartError) as excinfo:
        services.start_checkout(agent_session)
    assert_cart_error(excinfo, "currency_mismatch", 400)
    assert not Order.objects.exists()


def test_start_checkout_does_not_decrement_stock(agent_session, product):
    services.add_item(agent_session, "speckled-mug", 3)
    services.start_checkout(agent_session)
    product.refresh_from_db()
    assert product.stock == 10
