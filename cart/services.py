"""Every write to carts and orders. Business rules live here, never in views or the API.

Quantity changes stay correct under concurrency on every database: each edit first
takes the cart row's write lock with a conditional UPDATE (see `_lock_open_cart`),
line quantities change through conditional `UPDATE … SET quantity = quantity + n`
statements, and the unique constraints settle racing inserts. `select_for_update` is not
used because SQLite ignores it. The statements every cart.add runs are fixed SQL on Django's
cursor (an ORM query costs more to build than to run); they need RETURNING, which SQLite 3.35+
and PostgreSQL have.

The human side of checkout (confirm, reduce a short line, cancel) follows the same
pattern on the order row: `_lock_open_order` claims it with a conditional UPDATE that
matches only an open, unexpired order, so a confirmed, cancelled or expired order can
never change again and two racing submits confirm it once.
"""
import base64
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from catalog.models import Product
from catalog.selectors import get_active_product

from .models import Cart, CartLine, Order, OrderLine
from .money import to_money
from .payments import get_payment_backend
from .selectors import (
    FROZEN_STATUS,
    OPEN_CART_FIELDS,
    OPEN_STATUS,
    available_quantity,
    find_open_cart,
    hash_handoff_token,
)

ORDER_NUMBER_PREFIX = "AC-"


class CartError(Exception):
    """A refused cart operation: a stable `code`, one sentence for the agent, an HTTP status."""

    STATUS_BY_CODE = {
        "unknown_item": 404,
        "item_not_in_cart": 404,
        "invalid_quantity": 400,
        "variant_required": 400,
        "quantity_above_maximum": 400,
        "insufficient_stock": 400,
        "cart_empty": 409,
        "currency_mismatch": 400,
        "cart_not_open": 409,
    }

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = self.STATUS_BY_CODE[code]


class OrderClosed(Exception):
    """The order no longer accepts changes: it is confirmed, cancelled or expired."""


class HandoffError(Exception):
    """A refused change on the checkout page: one sentence for the human and an HTTP status."""

    status = 409

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status or self.status


class PaymentDeclined(HandoffError):
    status = 402


class PaymentPending(HandoffError):
    """The backend neither approved nor declined: nothing was taken and the order stays pending."""

    status = 202

    def __init__(self, message, reference):
        super().__init__(message)
        self.reference = reference  # the payment's id at the backend, kept on the order


def get_open_cart(agent_session):
    """The session's single open cart, created on first use."""
    cart = find_open_cart(agent_session)
    if cart is not None:
        return cart
    try:
        with transaction.atomic():
            return Cart.objects.create(agent_session=agent_session, currency=settings.SHOP_CURRENCY)
    except IntegrityError:
        # A concurrent request created it first (constraint cart_one_open_per_session).
        return Cart.objects.get(agent_session=agent_session, status=Cart.Status.OPEN)


def add_item(agent_session, item_id, quantity, *, in_same_transaction=None):
    """Add `quantity` of an item at the server's price; returns the item's quantity in the cart now.

    `in_same_transaction`, if given, is called inside the write transaction once the line has
    changed: what must commit with the change or not at all (the agent API's audit event).

    The product is read before the write transaction (SQLite has one writer for the whole
    database); the session's open cart is found by the statement that claims it, inside.
    """
    _require_quantity(quantity, minimum=1)
    product = _get_product(item_id, active_only=True)
    _require_sold_on_its_own(product)
    with transaction.atomic():
        cart, in_cart = _claim_and_add_to_line(agent_session, product, quantity, _quantity_limit(product))
        if in_cart is None:
            raise _limit_error(product, in_cart=_quantity_in_cart(cart, product))
        _call(in_same_transaction)
        return in_cart


def update_item(agent_session, item_id, quantity, *, in_same_transaction=None):
    """Set an item's quantity; 0 removes the line and returns None. Lowering a line always works,
    even when its product is no longer for sale. (`in_same_transaction`: see add_item.)"""
    _require_quantity(quantity, minimum=0)
    if quantity == 0:
        remove_item(agent_session, item_id, in_same_transaction=in_same_transaction)
        return None
    with transaction.atomic():
        product = _get_product(item_id)
        cart = _lock_open_cart(agent_session)
        line_query = CartLine.objects.filter(cart=cart, product=product)
        in_cart = line_query.values_list("quantity", flat=True).first()
        if in_cart is None:
            raise _not_in_cart_or_unknown(product, item_id)
        if quantity > in_cart and quantity > _quantity_limit(product):
            raise _limit_error(product, in_cart=0)
        line_query.update(quantity=quantity)
        _call(in_same_transaction)
        return line_query.select_related("product").get()


def remove_item(agent_session, item_id, *, in_same_transaction=None):
    """Remove an item's line. (`in_same_transaction`: see add_item.)"""
    with transaction.atomic():
        product = _get_product(item_id)
        cart = _lock_open_cart(agent_session)
        deleted, _ = CartLine.objects.filter(cart=cart, product=product).delete()
        if not deleted:
            raise _not_in_cart_or_unknown(product, item_id)
        _call(in_same_transaction)


def start_checkout(agent_session, *, ttl_seconds=1800, in_same_transaction=None):
    """Freeze the open cart into a pending order; returns (order, raw handoff token).

    Only the token's SHA-256 is stored, so the raw token exists only in the returned
    value. The session's next cart request starts a new, empty cart. (`in_same_transaction`:
    see add_item.)
    """
    with transaction.atomic():
        cart = _lock_open_cart(agent_session, new_status=Cart.Status.FROZEN)
        cart_lines = list(cart.lines.select_related("product"))
        if not cart_lines:
            raise CartError("cart_empty", "The cart is empty; add at least one item before checking out.")
        for cart_line in cart_lines:
            _require_purchasable(cart, cart_line)
        raw_token = secrets.token_urlsafe(32)
        order = _create_order(cart, cart_lines, raw_token, ttl_seconds)
        _call(in_same_transaction)
    return order, raw_token


def confirm_order(order, customer, *, backend=None):
    """The human confirms: take the stock of every line and charge the payment, all or nothing.

    Raises OrderClosed if the order is no longer open (a racing submit confirmed it first,
    or it was cancelled or expired), HandoffError (409) naming the lines stock no longer
    covers, PaymentDeclined (402) after recording the decline, PaymentPending (202) when the
    backend has no answer yet (the order stays pending); a declined or pending order can be
    confirmed again until it expires. A refused attempt keeps the customer's details.
    """
    backend = backend or get_payment_backend()
    try:
        with transaction.atomic():
            _lock_open_order(order)
            _take_stock(order)
            payment = backend.charge(order, customer)
            if payment.pending:
                raise PaymentPending(payment.message or "The payment is pending.", payment.reference)
            if not payment.approved:
                raise PaymentDeclined(payment.message or "The payment was declined.")
            now = timezone.now()
            _update_order(
                order, status=Order.Status.CONFIRMED, confirmed_at=now,
                payment_reference=payment.reference, **_customer_fields(customer),
            )
            Cart.objects.filter(pk=order.cart_id).update(status=Cart.Status.SUBMITTED, updated=now)
    except HandoffError as refusal:
        _record_refused_attempt(order, customer, refusal)
        raise
    return order


def reduce_line(order, line_id, quantity):
    """Lower one line's quantity (0 removes it), e.g. when stock ran out after the agent's checkout.
    Asking again for what is already so (a double-clicked Remove or Reduce) changes nothing and
    succeeds: removing a line the order does not hold (any more) is such a request."""
    with transaction.atomic():
        _lock_open_order(order)
        line = order.lines.filter(pk=line_id).first()
        if (line is None and quantity == 0) or (line is not None and quantity == line.quantity):
            return order
        if line is None or not 0 <= quantity < line.quantity:
            raise HandoffError("Choose a quantity below the one in the order.", status=400)
        if quantity == 0 and order.lines.count() == 1:
            raise HandoffError("This is the last item in the order; cancel the order instead.", status=400)
        if quantity == 0:
            line.delete()
        else:
            OrderLine.objects.filter(pk=line.pk).update(quantity=quantity)
        subtotal = sum((remaining.line_total for remaining in order.lines.all()), to_money(0))
        _update_order(order, subtotal=to_money(subtotal))
    return order


def cancel_order(order):
    with transaction.atomic():
        _lock_open_order(order)
        _update_order(order, status=Order.Status.CANCELLED)
    return order


def expire_if_overdue(order):
    """Record the expiry of an open order past its deadline (readers already see it as expired)."""
    Order.objects.filter(pk=order.pk, status__in=Order.OPEN_STATUSES, expires_at__lte=timezone.now()).update(
        status=Order.Status.EXPIRED
    )
    order.refresh_from_db()


def _lock_open_order(order):
    """Write-lock the order until the transaction ends, if it is still open; else raise OrderClosed.

    Refreshes `order`, so callers work on what the database holds under the lock.
    """
    claimed = Order.objects.filter(
        pk=order.pk, status__in=Order.OPEN_STATUSES, expires_at__gt=timezone.now()
    ).update(updated=timezone.now())
    order.refresh_from_db()
    if not claimed:
        raise OrderClosed(order.number)


def _update_order(order, **fields):
    Order.objects.filter(pk=order.pk).update(updated=timezone.now(), **fields)
    order.refresh_from_db()


def _record_refused_attempt(order, customer, refusal):
    """Keep the details the human typed (the form shows them again); a payment's outcome also sets
    the status (a pending one keeps the backend's reference, so the page can say it is pending)."""
    outcome = {}
    if isinstance(refusal, PaymentDeclined):
        outcome = {"status": Order.Status.DECLINED, "payment_reference": ""}
    elif isinstance(refusal, PaymentPending):
        outcome = {"status": Order.Status.PENDING, "payment_reference": refusal.reference}
    with transaction.atomic():
        _lock_open_order(order)
        _update_order(order, **outcome, **_customer_fields(customer))


def _customer_fields(customer):
    return {
        "customer_name": customer.name,
        "customer_email": customer.email,
        "shipping_address": customer.shipping_address,
    }


def _take_stock(order):
    """Decrement each line's product stock, in product order (one lock order for every order).

    Every line is tried so the error names all short lines; the caller's transaction
    rolls back the ones that succeeded.
    """
    lines = list(order.lines.order_by("product_id"))
    short = [line for line in lines if not _take_line_stock(line)]
    if short:
        raise HandoffError(" ".join(_shortage_sentence(line) for line in short))


def _take_line_stock(line):
    taken = Product.objects.active().filter(pk=line.product_id, stock__gte=line.quantity).update(
        stock=F("stock") - line.quantity
    )
    return taken == 1


def _shortage_sentence(line):
    available = available_quantity(Product.objects.get(pk=line.product_id))
    if available:
        return (f"Only {available} of {line.product_name} left, but the order has {line.quantity}: "
                "reduce it or cancel the order.")
    if line.order.lines.count() == 1:
        return f"{line.product_name} is sold out and it is the only item in the order: cancel the order."
    return f"{line.product_name} is sold out: remove it or cancel the order."


def _lock_open_cart(agent_session, *, new_status=Cart.Status.OPEN):
    """The session's open cart, write-locked until the transaction ends.

    The conditional UPDATE takes the row lock on every database, so edits and the
    checkout of one cart run one after the other; it matches nothing when a
    concurrent checkout froze the cart after we read it.
    """
    return _claim_cart(get_open_cart(agent_session), new_status=new_status)


def _claim_cart(cart, *, new_status=Cart.Status.OPEN):
    """Write-lock `cart` until the transaction ends, if it is still open (see _lock_open_cart)."""
    with connection.cursor() as cursor:
        return _claim(cursor, cart, new_status)


def _claim(cursor, cart, new_status=Cart.Status.OPEN):
    cursor.execute(CLAIM_OPEN_CART[new_status], {"updated": _now_as_saved(), "cart": cart.pk})
    if not cursor.rowcount:
        raise CartError(
            "cart_not_open",
            "This cart was checked out a moment ago; send the request again to use a new cart.",
        )
    cart.status = new_status
    return cart


# By the status the claim leaves the cart in. Statuses are written into the SQL, not bound (as in
# selectors.py: a bound value deciding whether the partial index cart_one_open_per_session applies
# makes SQLite compile the statement again each time it runs), and an edit's claim leaves the status
# alone, so that index is not rewritten: a claim with its transaction 41 -> 12 us, measured in a loop.
CLAIM_OPEN_CART = {
    Cart.Status.OPEN: f"UPDATE cart_cart SET updated = %(updated)s WHERE id = %(cart)s AND status = {OPEN_STATUS}",
    Cart.Status.FROZEN: f"UPDATE cart_cart SET status = {FROZEN_STATUS}, updated = %(updated)s"
                        f" WHERE id = %(cart)s AND status = {OPEN_STATUS}",
}
# cart.add claims the session's open cart without reading it first (an edit's claim, as above).
CLAIM_SESSION_CART = (
    f"UPDATE cart_cart SET updated = %(updated)s WHERE agent_session_id = %(session)s AND status = {OPEN_STATUS}"
    f" RETURNING {', '.join(OPEN_CART_FIELDS)}"
)
INCREMENT_LINE = (
    "UPDATE cart_cartline SET quantity = quantity + %(quantity)s"
    " WHERE cart_id = %(cart)s AND product_id = %(product)s AND quantity <= %(most)s RETURNING quantity"
)


def _claim_and_add_to_line(agent_session, product, quantity, limit):
    """Claim the session's open cart (creating it) and add to the product's line (creating it)
    unless the total would pass `limit`: (the cart, the new quantity or None when refused). The
    claim and the increment, every add's two statements, run on one cursor."""
    with connection.cursor() as cursor:
        cart = _claim_session_cart(cursor, agent_session) or _claim(cursor, get_open_cart(agent_session))
        _require_cart_currency(cart, product)
        in_cart = _increment_line(cursor, cart, product, quantity, limit)
    if in_cart is not None:
        return cart, in_cart
    if quantity > limit or CartLine.objects.filter(cart=cart, product=product).exists():
        return cart, None
    try:
        with transaction.atomic():
            CartLine.objects.create(cart=cart, product=product, quantity=quantity, unit_price_added=product.price)
        return cart, quantity
    except IntegrityError:
        # A concurrent request inserted the line first: add on top of it instead.
        with connection.cursor() as cursor:
            return cart, _increment_line(cursor, cart, product, quantity, limit)


def _claim_session_cart(cursor, agent_session):
    """The session's open cart, claimed as _claim claims it, in one statement; None if it has none."""
    cursor.execute(CLAIM_SESSION_CART, {"updated": _now_as_saved(), "session": agent_session.pk})
    row = cursor.fetchone()
    return Cart.from_db(connection.alias, OPEN_CART_FIELDS, row) if row else None


def _now_as_saved():
    """Now, as the ORM saves a cart's `updated`."""
    return Cart._meta.get_field("updated").get_db_prep_save(timezone.now(), connection)


def _increment_line(cursor, cart, product, quantity, limit):
    """The line's new quantity, or None when there is no line or it would pass `limit`."""
    cursor.execute(INCREMENT_LINE, {"quantity": quantity, "cart": cart.pk, "product": product.pk,
                                    "most": limit - quantity})
    row = cursor.fetchone()
    return row[0] if row else None


def _quantity_in_cart(cart, product):
    line = CartLine.objects.filter(cart=cart, product=product).first()
    return line.quantity if line else 0


def _create_order(cart, cart_lines, raw_token, ttl_seconds):
    order_lines = [
        OrderLine(
            product=cart_line.product,
            product_public_id=cart_line.product.public_id,
            product_name=cart_line.product.name,
            unit_price=to_money(cart_line.product.price),
            quantity=cart_line.quantity,
        )
        for cart_line in cart_lines
    ]
    order = Order.objects.create(
        number=_new_order_number(),
        cart=cart,
        agent_session=cart.agent_session,
        handoff_token_hash=hash_handoff_token(raw_token),
        expires_at=timezone.now() + timedelta(seconds=ttl_seconds),
        currency=cart.currency,
        subtotal=to_money(sum(order_line.line_total for order_line in order_lines)),
    )
    for order_line in order_lines:
        order_line.order = order
    OrderLine.objects.bulk_create(order_lines)
    return order


def _new_order_number():
    """AC- and 8 base32 characters (40 random bits), easy to read out on the phone."""
    while True:
        number = ORDER_NUMBER_PREFIX + base64.b32encode(secrets.token_bytes(5)).decode()
        if not Order.objects.filter(number=number).exists():
            return number


def _call(in_same_transaction):
    if in_same_transaction is not None:
        in_same_transaction()


def _require_quantity(quantity, *, minimum):
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < minimum:
        removes = " (0 removes the item)" if minimum == 0 else ""
        raise CartError("invalid_quantity", f"quantity must be a whole number of at least {minimum}{removes}.")


def _get_product(item_id, *, active_only=False):
    if active_only:
        product = get_active_product(item_id)
    else:
        product = Product.objects.filter(public_id=item_id).first()
    if product is None:
        raise _unknown_item(item_id)
    return product


def _unknown_item(item_id):
    return CartError("unknown_item", f"No item with id {item_id!r} is for sale; search or browse to find item ids.")


def _require_sold_on_its_own(product):
    """A product with variants is sold only as one of them (catalog.models.Product.variant_of)."""
    if product.has_variants:
        raise CartError(
            "variant_required",
            f"{product.name} comes in variants: add one of them by its id (detail lists them as variants).",
        )


def _require_cart_currency(cart, product):
    if product.currency != cart.currency:
        raise CartError(
            "currency_mismatch",
            f"{product.name} is priced in {product.currency} but this cart is in {cart.currency}.",
        )


def _require_purchasable(cart, cart_line):
    product = cart_line.product
    _require_cart_currency(cart, product)
    available = available_quantity(product)
    if cart_line.quantity > available:
        item = f"{product.name} ({product.public_id})"
        if not available:
            raise CartError("insufficient_stock", f"{item} is no longer available; cart.remove it before checking out.")
        raise CartError(
            "insufficient_stock",
            f"Only {available} of {item} are available but the cart holds {cart_line.quantity}; "
            f"cart.update it to {available} or less before checking out.",
        )


def _quantity_limit(product):
    return min(settings.CART_MAX_QUANTITY, available_quantity(product))


def _limit_error(product, *, in_cart):
    """The error for whichever limit binds: the stock when it is below the cart maximum."""
    available = available_quantity(product)
    maximum = settings.CART_MAX_QUANTITY
    held = f", and the cart already holds {in_cart}" if in_cart else ""
    if not available:
        return CartError("insufficient_stock",
                         f"{product.name} ({product.public_id}) is out of stock{held}; choose another item.")
    if available < maximum:
        return CartError("insufficient_stock", f"Only {available} of {product.name} are available{held}.")
    return CartError(
        "quantity_above_maximum", f"A cart can hold at most {maximum} of one item ({product.name}){held}."
    )


def _not_in_cart_or_unknown(product, item_id):
    """An item the cart lacks: unknown when it is no longer for sale (its name is no business of the agent's)."""
    if not Product.objects.active().filter(pk=product.pk).exists():
        return _unknown_item(item_id)
    return CartError("item_not_in_cart", f"{product.name} ({product.public_id}) is not in the cart.")
