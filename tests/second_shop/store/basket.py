"""The shop's basket rules (writes), used by its pages and by its agents provider alike."""
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .models import Basket, BasketLine, Item, PendingOrder


class BasketError(Exception):
    def __init__(self, status, code, message):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def basket_for(owner):
    basket, _ = Basket.objects.get_or_create(owner=owner)
    return basket


def listed_item(sku):
    item = Item.objects.filter(sku=sku, listed=True).first()
    if item is None:
        raise BasketError(404, "unknown_item", f"No item has the SKU {sku!r}.")
    return item


@transaction.atomic
def set_quantity(owner, sku, quantity):
    """Set the line of `sku` to `quantity` (0 removes it); returns the new quantity. A line in the
    basket can always be lowered or removed, even once its item is unlisted."""
    line = BasketLine.objects.filter(basket__owner=owner, item__sku=sku).first()
    if line is not None and quantity <= line.quantity:
        if quantity == 0:
            line.delete()
        else:
            BasketLine.objects.filter(pk=line.pk).update(quantity=quantity)
        return quantity
    item = listed_item(sku)
    if quantity > settings.STORE_MAX_LINE_QUANTITY:
        raise BasketError(400, "quantity_too_large",
                          f"At most {settings.STORE_MAX_LINE_QUANTITY} of one item per order.")
    if quantity > item.quantity_on_hand:
        raise BasketError(409, "insufficient_stock", f"Only {item.quantity_on_hand} of {sku!r} left.")
    basket = basket_for(owner)
    if quantity == 0:
        BasketLine.objects.filter(basket=basket, item=item).delete()
    else:
        BasketLine.objects.update_or_create(basket=basket, item=item, defaults={"quantity": quantity})
    return quantity


def add(owner, sku, quantity):
    line = BasketLine.objects.filter(basket__owner=owner, item__sku=sku).first()
    return set_quantity(owner, sku, (line.quantity if line else 0) + quantity)


@transaction.atomic
def checkout(owner):
    """Freeze the basket into a pending order and empty it; returns the order."""
    lines = list(BasketLine.objects.filter(basket__owner=owner).select_related("item"))
    if not lines:
        raise BasketError(409, "empty_basket", "The basket is empty; add an item first.")
    frozen = [
        {"sku": line.item.sku, "title": line.item.title, "quantity": line.quantity,
         "unit_price_cents": line.item.unit_price_cents}
        for line in lines
    ]
    order = PendingOrder.objects.create(
        reference=f"NW-{secrets.token_hex(4).upper()}",
        token=secrets.token_urlsafe(32),
        owner=owner,
        lines=frozen,
        total_cents=sum(line["quantity"] * line["unit_price_cents"] for line in frozen),
        expires_at=timezone.now() + timedelta(seconds=settings.STORE_CHECKOUT_TTL_SECONDS),
    )
    BasketLine.objects.filter(basket__owner=owner).delete()
    return order
