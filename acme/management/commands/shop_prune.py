"""`manage.py shop_prune`: for cron, daily, before `agents_prune` (docs/deploy.md, "Upkeep").
The shop's side of what agent traffic leaves: old orders with their carts, old contact messages."""
from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from acme.models import ContactMessage
from cart.retention import prune_orders


class Command(BaseCommand):
    help = ("Delete orders closed more than ORDER_RETENTION_DAYS ago (with their carts) and contact messages "
            "older than CONTACT_RETENTION_DAYS.")

    def handle(self, *args, **options):
        orders = prune_orders()
        cutoff = timezone.now() - timedelta(days=settings.CONTACT_RETENTION_DAYS)
        messages, _ = ContactMessage.objects.filter(received__lt=cutoff).delete()
        self.stdout.write(f"Pruned {orders} orders with their carts and {messages} contact messages.")
