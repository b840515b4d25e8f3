"""Acme Ceramics' provider: binds agents_protocol to the catalog and cart apps.

This is the only place the shop and the protocol meet. Everything here goes through
catalog selectors and cart services; nothing reaches into the protocol's internals.
"""
import copy
from contextlib import contextmanager

from django.conf import settings
from django.core.mail import EmailMessage
from django.urls import reverse

from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.formats import iso_utc
from agents_protocol.core.provider import (
    CallContext,
    Discount,
    Handoff,
    ItemPage,
    Payment,
    ShippingOption,
    ShopProvider,
)
from cart import commerce
from cart import scenarios as cart_scenarios
from cart import selectors as cart_selectors
from cart import services as cart_services
from cart.money import to_money
from cart.payments import Customer, TestTokenBackend
from catalog import read_cache
from catalog import scenarios as catalog_scenarios
from catalog import selectors as catalog_selectors

from .models import ContactMessage

LOW_STOCK = 5
# The demo's payment handler for agents' checkout sessions, and its token that hands the payment to
# the human's checkout page (its other tokens: cart/payments.py TestTokenBackend).
TEST_PAYMENT_HANDLER = "mock_payment_handler"
ESCALATE_TOKEN = "escalate_token"
# Its token that asks for 3-D Secure first: approved once the buyer authenticated, else declined.
AUTHENTICATION_TOKEN = "3ds_token"
AUTHENTICATED_OUTCOMES = ("authenticated", "attempt_acknowledged")
TEST_3DS_CHALLENGE = {
    "acquirer_details": {"acquirer_bin": "400000", "acquirer_country": "US", "acquirer_merchant_id": "acme_test",
                         "merchant_name": "Acme Ceramics (test)"},
    "directory_server": "visa",
    "flow_preference": {"type": "challenge", "challenge": {"type": "preferred"}},
}
# What checkout tells the agent to do with the link: this shop's page asks for contact and shipping details.
HANDOFF_MESSAGE = (
    "Give this link to your human to review the cart, enter contact and shipping details and pay. "
    "Do not open it yourself."
)


@contextmanager
def cart_errors_as_capability_errors():
    try:
        yield
    except cart_services.CartError as error:
        raise CapabilityError(error.status, error.code, error.message) from error


def product_summary(origin, product):
    return {
        "id": product.public_id,
        "name": product.name,
        "price": to_money(product.price),
        "currency": product.currency,
        "category": product.category.slug,
        "in_stock": product.stock > 0,
        "url": f"{origin}{product.get_absolute_url()}",
    }


def summaries(origin, products):
    """Freshly read products (never the read cache's), as a product with variants is offered."""
    return [product_summary(origin, product) for product in catalog_selectors.show_what_variants_offer(products)]


@read_cache.cached(read_cache.page_length)
def search_answer(query, page, limit, origin):
    """The search capability's (items, total), kept in the catalog read cache like detail_answer:
    a page's 20 summaries cost more to build than finding them (the selector's own cache is
    left to the shop's pages)."""
    products, total = catalog_selectors.search_products.uncached(query, page, limit)
    return summaries(origin, products), total


@read_cache.cached(read_cache.page_length)
def browse_answer(category, sort, page, limit, origin):
    """The browse capability's (items, total), kept like search_answer."""
    products, total = catalog_selectors.browse_products.uncached(category, sort, page, limit)
    return summaries(origin, products), total


@read_cache.cached()
def detail_answer(item_id, origin):
    """The detail capability's answer, kept in the catalog read cache like the search and browse
    pages: agents ask for the same product again and again, and building the answer from the
    product cost more than finding the product."""
    product = catalog_selectors.get_active_product(item_id)
    return product_detail(origin, product) if product else None


def product_detail(origin, product):
    variants = None
    if product.has_variants:  # a copy: the product read is the read cache's, shared by every call
        [product] = catalog_selectors.show_what_variants_offer([copy.copy(product)])
        variants = catalog_selectors.active_variants(product)
    return detail_of(origin, product, variants)


def detail_of(origin, product, variants):
    """The detail answer of `product`, with `variants` (its active ones) when it has variants, else None."""
    return {
        **product_summary(origin, product),
        "description": product.description,
        "category_name": product.category.name,
        "materials": product.materials,
        "tags": product.tags,
        "stock": product.stock,
        "stock_status": stock_status(product.stock),
        "image_url": f"{origin}{product.image.url}" if product.image else None,
        "created": iso_utc(product.created),
        **variant_fields(product, variants),
    }


def variant_fields(product, variants):
    """A parent lists its variants (cart.add takes a variant's id, not the parent's); a variant
    names its parent and what sets it apart."""
    if variants is not None:
        return {"variants": [variant(v) for v in variants]}
    if product.variant_of_id is not None:
        return {"variant_of": product.variant_of.public_id, "attributes": product.variant_attributes or {}}
    return {}


def variant(product):
    return {
        "id": product.public_id,
        "name": product.name,
        "attributes": product.variant_attributes or {},
        "price": to_money(product.price),
        "currency": product.currency,
        "stock": product.stock,
        "in_stock": product.stock > 0,
    }


def stock_status(stock):
    if stock <= 0:
        return "out_of_stock"
    return "low_stock" if stock <= LOW_STOCK else "in_stock"


def cart_data(session):
    view = cart_selectors.view_cart(session)
    return {
        "items": [dict(vars(item)) for item in view.items],  # dataclasses.asdict deep-copies: 5x slower
        "subtotal": view.subtotal,
        "currency": view.currency,
        "cart_size": view.cart_size,
        "total_quantity": view.total_quantity,
    }


def order_summary(order):
    return {
        "order_id": order.number,
        "status": order.current_status.value,
        "subtotal": order.subtotal,
        "currency": order.currency,
        "created": iso_utc(order.created),
        "expires_at": iso_utc(order.expires_at),
        "confirmed_at": iso_utc(order.confirmed_at),
    }


def price_change_notice(order, line, price_then):
    return (
        f"The price of {line.product_name} ({line.product_public_id}) changed from {price_then} to "
        f"{line.unit_price} {order.currency} since it was added to the cart; the order and your human's page "
        "use the new price."
    )


def holds(session, item_id):
    """Whether the session's open cart, or an order its human may still confirm, holds the item
    (no session: neither)."""
    if session is None:
        return False
    in_cart = any(item.item_id == item_id for item in cart_selectors.view_cart(session).items)
    return in_cart or cart_selectors.open_orders_hold(session, item_id)


class CartChange:
    """A cart change of one call: the cart is read inside the change's write transaction and
    handed to context.record_change(), so the audit event and the cart the agent is shown are
    kept in that one transaction; the answer reuses the same read."""

    def __init__(self, context, then=None):
        self.context = context
        self.then = then
        self.cart = None

    def record(self):
        if self.then is not None:
            self.then()
        self.cart = cart_data(self.context.session)
        self.context.record_change(cart=self.cart)

    def line_result(self, item_id, quantity, **extra):
        cart = self.cart if self.cart is not None else cart_data(self.context.session)
        return {"item_id": item_id, "quantity": quantity, **extra, "cart_size": cart["cart_size"], "cart": cart}


class AcmeProvider(ShopProvider):
    # The cart services open their own short write transactions, reading the product and the cart
    # before SQLite's one write lock, and call context.record_change() in them.
    atomic_changes = False

    @property
    def max_quantity(self):
        """The cart's own maximum of one item (CART_MAX_QUANTITY): cart.add and cart.update publish it."""
        return settings.CART_MAX_QUANTITY

    def search(self, context: CallContext, query, page, limit):
        return ItemPage(*search_answer(query, page, limit, context.origin))

    def browse(self, context: CallContext, category, sort, page, limit):
        if sort not in catalog_selectors.SORTS:
            raise CapabilityError(400, "invalid_params", f"Unknown sort {sort!r}.",
                                  fields={"sort": f"Must be one of: {', '.join(catalog_selectors.SORTS)}."})
        try:
            return ItemPage(*browse_answer(category, sort, page, limit, context.origin))
        except catalog_selectors.UnknownCategory:
            slugs = ", ".join(c.slug for c in catalog_selectors.list_categories())
            raise CapabilityError(404, "unknown_category", f"No category {category!r}; use one of: {slugs}.") from None

    def item_detail(self, context: CallContext, item_id):
        rearmed = catalog_scenarios.rearms(item_id)
        if rearmed is not None and not holds(context.session, rearmed):
            catalog_scenarios.rearm(item_id)
        return detail_answer(item_id, context.origin)

    def cart_add(self, context: CallContext, item_id, quantity):
        # A demo piece's price rises (or it is discontinued) in the transaction that adds it.
        change = CartChange(context, then=lambda: catalog_scenarios.after_added_to_cart(item_id))
        with cart_errors_as_capability_errors():
            in_cart = cart_services.add_item(context.session, item_id, quantity, in_same_transaction=change.record)
        return change.line_result(item_id, in_cart)

    def cart_view(self, context: CallContext):
        return cart_data(context.session)

    def cart_update(self, context: CallContext, item_id, quantity):
        change = CartChange(context)
        with cart_errors_as_capability_errors():
            line = cart_services.update_item(context.session, item_id, quantity, in_same_transaction=change.record)
        return change.line_result(item_id, line.quantity if line else 0, removed=line is None)

    def cart_remove(self, context: CallContext, item_id):
        change = CartChange(context)
        with cart_errors_as_capability_errors():
            cart_services.remove_item(context.session, item_id, in_same_transaction=change.record)
        return change.line_result(item_id, 0, removed=True)

    def checkout(self, context: CallContext):
        with cart_errors_as_capability_errors():
            order, token = cart_services.start_checkout(
                context.session, ttl_seconds=cart_scenarios.checkout_ttl_seconds(context.session),
                in_same_transaction=context.record_change,
            )
        url = context.absolute_url(reverse("cart:handoff", kwargs={"token": token}))
        return Handoff(checkout_url=url, expires_at=order.expires_at, order_id=order.number, message=HANDOFF_MESSAGE,
                       notices=tuple(price_change_notice(order, *change) for change in cart_selectors.price_changes(order)))

    def order_status(self, context: CallContext, order_id):
        if order_id is None:
            return {"orders": [order_summary(order) for order in cart_selectors.session_orders(context.session)]}
        order = cart_selectors.find_session_order(context.session, order_id)
        if order is None:
            raise CapabilityError(404, "unknown_order", f"This session has no order {order_id!r}.")
        return order_summary(order)

    def catalog_items(self, context: CallContext):
        for product, variants in catalog_selectors.products_with_variants():
            yield detail_of(context.origin, product, variants if product.has_variants else None)

    def paid_sessions(self, session_pks):
        return cart_selectors.sessions_with_confirmed_orders(session_pks)

    def contact(self, context: CallContext, name, email, message):
        stored = ContactMessage.objects.create(name=name, email=email, message=message, agent_session=context.session)
        delivered = EmailMessage(
            subject=f"[Acme Ceramics] Message from {' '.join(name.split())}",
            body=message,
            to=[settings.SHOP_CONTACT_EMAIL],
            reply_to=[email],
        ).send()
        # `sent` is the protocol's answer (interaction-api.md: `{"sent": true}`): the shop's mailbox
        # was handed the message; `received` and `message_id` say it is stored here as well.
        return {"sent": delivered > 0, "received": True, "message_id": stored.pk}

    def shipping_options(self, context: CallContext, destination, lines, subtotal, currency):
        item_ids = [line["item_id"] for line in lines]
        return [ShippingOption(id=rate.rate_id, title=title, amount=price)
                for rate, price, title in commerce.shipping_options(destination.get("address_country"), subtotal,
                                                                    item_ids)]

    def discounts(self, context: CallContext, codes, subtotal, currency):
        return [Discount(code=discount.code, title=discount.description, amount=amount)
                for discount, amount in commerce.discounts(codes, subtotal)]

    def buyer_addresses(self, context: CallContext, email):
        return commerce.addresses_of(email)

    def remember_address(self, context: CallContext, email, address):
        return commerce.remember_address(email, address)

    def pay(self, context: CallContext, order_id, instrument, amount, currency, buyer):
        """The test handler charges through the demo's payment backend (its 3-D Secure token asks
        for the buyer's authentication first); other handlers, and the escalation token, leave the
        payment to the human's checkout page."""
        token = instrument.credential.get("token")
        if instrument.handler_id != TEST_PAYMENT_HANDLER or token == ESCALATE_TOKEN:
            return Payment(Payment.ESCALATE)
        if token == AUTHENTICATION_TOKEN:
            if instrument.authentication is None:
                return Payment(Payment.AUTHENTICATE, challenge=TEST_3DS_CHALLENGE)
            authenticated = instrument.authentication.get("outcome") in AUTHENTICATED_OUTCOMES
            token = "success_token" if authenticated else "fail_token"
        order = cart_selectors.find_session_order(context.session, order_id)
        if order is None:
            raise CapabilityError(404, "unknown_order", f"This session has no order {order_id!r}.")
        card_number = "" if token is not None else "".join(filter(str.isdigit, str(instrument.credential.get("number", ""))))
        try:
            cart_services.confirm_order(order, buyer_as_customer(buyer, card_number),
                                        backend=TestTokenBackend(None if token is None else str(token)))
        except cart_services.PaymentPending:
            return Payment(Payment.ESCALATE)
        except cart_services.PaymentDeclined as declined:
            return Payment(Payment.DECLINED, message=declined.message)
        except cart_services.HandoffError as refusal:
            raise CapabilityError(400, "insufficient_stock", refusal.message) from refusal
        except cart_services.OrderClosed:
            raise CapabilityError(409, "checkout_closed", f"Order {order_id} is no longer open.") from None
        return Payment(Payment.APPROVED, reference=order.payment_reference)


def buyer_as_customer(buyer, card_number):
    buyer = buyer or {}
    name = buyer.get("full_name") or " ".join(filter(None, [buyer.get("first_name"), buyer.get("last_name")]))
    return Customer(name=str(name or "")[:200], email=str(buyer.get("email") or "")[:320], shipping_address="",
                    card_number=card_number)
