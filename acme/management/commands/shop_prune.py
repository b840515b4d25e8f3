"""`manage.py shop_prune`: for cron, daily, before `agents_prune` (docs/deploy.md, "Upkeep").
The shop's side of what agent traffic leaves: old orders with their carts, old contact messages,
and expired browser sessions (which hold the contact and shipping details a human typed on a
checkout page: Django's `clearsessions`, so no separate cron line is needed)."""
from datetime import timedelta
from importlib import import_module

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from acme.models import ContactMessage
from cart.retention import prune_orders


class Command(BaseCommand):
    help = ("Delete orders closed more than ORDER_RETENTION_DAYS ago (with their carts), contact messages "
            "older than CONTACT_RETENTION_DAYS and expired browser sessions.")

    def handle(self, *args, **options):
        orders = prune_orders()
        cutoff = timezone.now() - timedelta(days=settings.CONTACT_RETENTION_DAYS)
        messages, _ = ContactMessage.objects.filter(received__lt=cutoff).delete()
        import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()
        self.stdout.write(f"Pruned {orders} orders with their carts and {messages} contact messages, "
                          "and expired browser sessions.")
