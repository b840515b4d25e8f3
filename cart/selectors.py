"""Read-only queries over carts and orders (writes live in services.py)."""
import hashlib
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db import connection
from django.utils import timezone

from catalog.models import Product

from .models import Cart, CartLine, Order, OrderLine
from .money import to_money


@dataclass  # not frozen: a frozen dataclass's __init__ sets each field through object.__setattr__, 2x slower
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


def price_changes(order):
    """The order's lines priced otherwise than when they were added to the cart: (line, price then)."""
    added = dict(CartLine.objects.filter(cart_id=order.cart_id).values_list("product_id", "unit_price_added"))
    return [
        (line, to_money(added[line.product_id]))
        for line in order.lines.all()
        if added.get(line.product_id) is not None and to_money(added[line.product_id]) != line.unit_price
    ]


def available_quantity(product):
    """How many of a product can still be bought; an inactive product has none, nor a variant of one."""
    on_sale = product.is_active and (
        product.variant_of_id is None or Product.objects.filter(pk=product.variant_of_id, is_active=True).exists())
    return available_from(product.stock, on_sale)


def available_from(stock, is_active):
    return stock if is_active else 0


# The fixed statements bind named parameters (%(name)s, from a dict): Django's SQLite cursor
# substitutes those with one %-formatting, where %s costs a regular expression over the statement.
# The open status is written into the SQL below, not bound as a parameter: when a parameter
# decides whether a partial index applies (cart_one_open_per_session), SQLite compiles the
# statement again each time it runs, which made these reads 2-3 times slower.
OPEN_STATUS = f"'{Cart.Status.OPEN.value}'"
FROZEN_STATUS = f"'{Cart.Status.FROZEN.value}'"
# One open cart per session at most (constraint cart_one_open_per_session). What a cart edit
# reads of it; its times stay deferred (loaded by the ORM if read).
OPEN_CART_FIELDS = ["id", "agent_session_id", "status", "currency"]
OPEN_CART = (
    f"SELECT {', '.join(f'c.{name}' for name in OPEN_CART_FIELDS)} FROM cart_cart c"
    f" WHERE c.agent_session_id = %(session)s AND c.status = {OPEN_STATUS}"
)


def find_open_cart(agent_session):
    """The session's open cart, or None: every cart edit starts here, so it is fixed SQL on Django's
    cursor (an ORM query costs more to build than to run), made a Cart by Model.from_db()."""
    with connection.cursor() as cursor:
        cursor.execute(OPEN_CART, {"session": agent_session.pk})
        row = cursor.fetchone()
    return Cart.from_db(connection.alias, OPEN_CART_FIELDS, row) if row else None


def view_cart(agent_session):
    """The session's open cart priced at current server prices: one fixed SQL read (the agent
    API's cart answers all end with it; an ORM query costs more to build than to run). Its
    values need no converting: to_money() makes the price a Decimal from whatever number type
    the database driver gives, and the rest are plain numbers and text."""
    with connection.cursor() as cursor:
        cursor.execute(OPEN_CART_LINES, {"session": agent_session.pk})
        rows = cursor.fetchall()
    if not rows:
        return CartView(
            items=(), subtotal=to_money(0), currency=settings.SHOP_CURRENCY, cart_size=0, total_quantity=0
        )
    cart_currency = rows[0][0]
    items = tuple(_cart_item(*row[1:]) for row in rows if row[1] is not None)
    return CartView(
        items=items,
        subtotal=to_money(sum((item.line_total for item in items), Decimal(0))),
        currency=cart_currency,
        cart_size=len(items),
        total_quantity=sum(item.quantity for item in items),
    )


# The open cart (one at most: constraint cart_one_open_per_session), a row per line in line order;
# a cart without lines is one row of NULL line columns.
OPEN_CART_LINES = f"""
    SELECT c.currency, p.public_id, p.name, p.price, p.currency, p.stock,
           p.is_active AND (parent.id IS NULL OR parent.is_active), l.quantity
    FROM cart_cart c
    LEFT JOIN cart_cartline l ON l.cart_id = c.id
    LEFT JOIN catalog_product p ON p.id = l.product_id
    LEFT JOIN catalog_product parent ON parent.id = p.variant_of_id
    WHERE c.agent_session_id = %(session)s AND c.status = {OPEN_STATUS}
    ORDER BY l.added, l.id
"""
def _cart_item(public_id, name, price, currency, stock, is_active, quantity):
    unit_price = to_money(price)
    available = available_from(stock, is_active)
    return CartItem(
        item_id=public_id,
        name=name,
        unit_price=unit_price,
        quantity=quantity,
        line_total=unit_price * quantity,  # whole cents times a whole number: whole cents
        currency=currency,
        available=available,
        in_stock=available >= quantity,
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


def open_orders_hold(agent_session, public_id):
    """Whether an order of the session that its human may still confirm has a line of the item."""
    return OrderLine.objects.filter(
        order__agent_session=agent_session, order__status__in=Order.OPEN_STATUSES,
        order__expires_at__gt=timezone.now(), product_public_id=public_id,
    ).exists()


def find_session_order(agent_session, number):
    """The session's order with this number, or None (another session's order is None too)."""
    return Order.objects.filter(agent_session=agent_session, number=number).first()


def sessions_with_confirmed_orders(session_pks):
    """The agent sessions among `session_pks` with a confirmed order: the human paid (one query)."""
    orders = Order.objects.filter(agent_session_id__in=session_pks, status=Order.Status.CONFIRMED)
    return set(orders.values_list("agent_session_id", flat=True))
