"""Read-only queries over carts and orders (writes live in services.py)."""
import hashlib
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings

from .models import Cart, Order
from .money import to_money


@dataclass(frozen=True)
class CartItem:
    item_id: str
    name: str
    unit_price: Decimal
    quantity: int
    line_total: Decimal
    currency: str
    available: int
    in_stock: bool  # True when `available` covers the whole `quantity`


@dataclass(frozen=True)
class CartView:
    items: tuple
    subtotal: Decimal
    currency: str
    cart_size: int
    total_quantity: int


def available_quantity(product):
    """How many of a product can still be bought; an inactive product has none."""
    return product.stock if product.is_active else 0


def find_open_cart(agent_session):
    return Cart.objects.filter(agent_session=agent_session, status=Cart.Status.OPEN).first()


def view_cart(agent_session):
    """The session's open cart priced at current server prices, in two queries at most."""
    cart = find_open_cart(agent_session)
    if cart is None:
        return CartView(
            items=(), subtotal=to_money(0), currency=settings.SHOP_CURRENCY, cart_size=0, total_quantity=0
        )
    items = tuple(_cart_item(line) for line in cart.lines.select_related("product"))
    return CartView(
        items=items,
        subtotal=to_money(sum((item.line_total for item in items), Decimal(0))),
        currency=cart.currency,
        cart_size=len(items),
        total_quantity=sum(item.quantity for item in items),
    )


def _cart_item(line):
    product = line.product
    unit_price = to_money(product.price)
    available = available_quantity(product)
    return CartItem(
        item_id=product.public_id,
        name=product.name,
        unit_price=unit_price,
        quantity=line.quantity,
        line_total=to_money(unit_price * line.quantity),
        currency=product.currency,
        available=available,
        in_stock=available >= line.quantity,
    )


@dataclass(frozen=True)
class HandoffLine:
    """An order line as the human reviews it: `available` is the product's stock right now."""

    line: object
    available: int

    @property
    def short(self):
        return self.available < self.line.quantity


def hash_handoff_token(raw_token):
    return hashlib.sha256(raw_token.encode()).hexdigest()


def find_order_by_handoff_token(raw_token):
    return Order.objects.filter(handoff_token_hash=hash_handoff_token(raw_token)).first()


def handoff_lines(order):
    """The order's lines with current availability, so the page can flag lines stock no longer covers."""
    return tuple(
        HandoffLine(line=line, available=available_quantity(line.product))
        for line in order.lines.select_related("product")
    )


def session_orders(agent_session):
    """Every order the session checked out, newest first."""
    return list(Order.objects.filter(agent_session=agent_session))


def find_session_order(agent_session, number):
    """The session's order with this number, or None (another session's order is None too)."""
    return Order.objects.filter(agent_session=agent_session, number=number).first()
