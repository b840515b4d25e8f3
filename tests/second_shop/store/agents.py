"""Northwind Goods' provider: how agents_protocol reaches this shop's items, baskets and orders.

Named in settings as AGENTS_PROTOCOL["PROVIDER"] = "store.agents.StoreProvider". It overrides
the ShopProvider methods of the capabilities this shop supports; the app calls each with the
call's context and keyword arguments, already checked against the capability's parameters, and
runs those that change something in a transaction it opens. Each returns JSON-ready data
(Decimal for money, which the app writes with the currency's decimals) or raises
CapabilityError to refuse.
"""
from contextlib import contextmanager
from decimal import Decimal

from django.conf import settings
from django.core.mail import send_mail
from django.db.models import Q
from django.urls import reverse

from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.formats import iso_utc
from agents_protocol.core.provider import CallContext, Handoff, ItemPage, ShopProvider

from . import basket
from .models import BasketLine, ContactRequest, Item, PendingOrder

SORTS = {"price_asc": "unit_price_cents", "price_desc": "-unit_price_cents", "newest": "-added_on"}


def money(cents):
    return Decimal(cents).scaleb(-2)  # 1250 -> Decimal("12.50")


def owner(context):
    return f"agent:{context.session.public_id}"


@contextmanager
def basket_errors():
    try:
        yield
    except basket.BasketError as error:
        raise CapabilityError(error.status, error.code, error.message) from error


def item_summary(item):
    return {
        "id": item.sku,
        "name": item.title,
        "price": money(item.unit_price_cents),
        "currency": settings.STORE_CURRENCY,
        "category": item.department,
        "in_stock": item.quantity_on_hand > 0,
    }


def page_of(items, page, limit):
    start = (page - 1) * limit
    return ItemPage([item_summary(i) for i in items[start:start + limit]], items.count())


def basket_data(context):
    lines = BasketLine.objects.filter(basket__owner=owner(context)).select_related("item")
    items = [
        {"item_id": line.item.sku, "name": line.item.title, "unit_price": money(line.item.unit_price_cents),
         "quantity": line.quantity, "line_total": money(line.quantity * line.item.unit_price_cents),
         "currency": settings.STORE_CURRENCY}
        for line in lines
    ]
    return {
        "items": items,
        "subtotal": sum((i["line_total"] for i in items), Decimal("0.00")),
        "currency": settings.STORE_CURRENCY,
        "cart_size": len(items),
    }


def line_change(context, item_id, quantity):
    cart = basket_data(context)
    return {"item_id": item_id, "quantity": quantity, "cart_size": cart["cart_size"], "cart": cart}


def order_data(order):
    return {
        "order_id": order.reference,
        "status": order.status,
        "total": money(order.total_cents),
        "currency": settings.STORE_CURRENCY,
        "expires_at": iso_utc(order.expires_at),
    }


class StoreProvider(ShopProvider):
    def search(self, context: CallContext, *, query, page, limit):
        found = Item.objects.filter(listed=True).filter(
            Q(title__icontains=query) | Q(blurb__icontains=query) | Q(sku__iexact=query)
        )
        return page_of(found, page, limit)

    def browse(self, context: CallContext, *, category, sort, page, limit):
        if sort not in SORTS:
            raise CapabilityError(400, "invalid_params", f"Unknown sort {sort!r}.",
                                  fields={"sort": f"Must be one of: {', '.join(SORTS)}."})
        items = Item.objects.filter(listed=True)
        if category is not None:
            items = items.filter(department=category)
            if not items.exists():
                raise CapabilityError(404, "unknown_category", f"No department {category!r}.")
        return page_of(items.order_by(SORTS[sort], "sku"), page, limit)

    def item_detail(self, context: CallContext, *, item_id):
        item = Item.objects.filter(sku=item_id, listed=True).first()
        if item is None:
            return None  # the app answers 404 unknown_item
        return {**item_summary(item), "description": item.blurb, "stock": item.quantity_on_hand}

    def cart_add(self, context: CallContext, *, item_id, quantity):
        with basket_errors():
            total = basket.add(owner(context), item_id, quantity)
        return line_change(context, item_id, total)

    def cart_view(self, context: CallContext):
        return basket_data(context)

    def cart_update(self, context: CallContext, *, item_id, quantity):
        with basket_errors():
            basket.set_quantity(owner(context), item_id, quantity)
        return line_change(context, item_id, quantity)

    def cart_remove(self, context: CallContext, *, item_id):
        with basket_errors():
            basket.set_quantity(owner(context), item_id, 0)
        return line_change(context, item_id, 0)

    def checkout(self, context: CallContext):
        with basket_errors():
            order = basket.checkout(owner(context))
        url = context.absolute_url(reverse("store:review", args=[order.token]))
        return Handoff(checkout_url=url, expires_at=order.expires_at, order_id=order.reference)

    def order_status(self, context: CallContext, *, order_id):
        orders = PendingOrder.objects.filter(owner=owner(context))
        if order_id is None:
            return {"orders": [order_data(order) for order in orders]}
        order = orders.filter(reference=order_id).first()
        if order is None:
            raise CapabilityError(404, "unknown_order", f"This session has no order {order_id!r}.")
        return order_data(order)

    def contact(self, context: CallContext, *, name, email, message):
        request = ContactRequest.objects.create(name=name, email=email, message=message)
        sent = send_mail(f"Message from {name}", message, None, [settings.STORE_CONTACT_EMAIL])
        return {"sent": sent == 1, "reference": request.pk}  # the protocol's answer is {"sent": true}
