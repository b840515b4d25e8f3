"""How long the shop keeps what agent checkouts leave behind (settings.ORDER_RETENTION_DAYS).

Carts belong to their agent session and go with it (agents_protocol's AUDIT_RETENTION_DAYS),
except a cart that became an order: the order protects it, and both go here.
"""
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from cart.models import Cart, Order


def prune_orders(now=None):
    """Delete orders closed (paid, expired, cancelled: past their deadline) and untouched for
    ORDER_RETENTION_DAYS, with their lines and carts; returns how many."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.ORDER_RETENTION_DAYS)
    with transaction.atomic():
        old = Order.objects.filter(updated__lt=cutoff, expires_at__lt=cutoff)
        cart_ids = list(old.values_list("cart_id", flat=True))
        _, deleted = old.delete()
        Cart.objects.filter(pk__in=cart_ids).delete()
    return deleted.get(Order._meta.label, 0)
