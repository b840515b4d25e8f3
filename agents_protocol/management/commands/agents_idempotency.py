"""`manage.py agents_idempotency prune`: delete Idempotency-Keys past their 24 hours (for cron)."""
from django.core.management.base import BaseCommand

from agents_protocol.http.idempotency import prune


class Command(BaseCommand):
    help = "Delete expired Idempotency-Key records (an expired key is also reused in place when sent again)."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        actions.add_parser("prune", help="Delete the records of keys older than 24 hours.")

    def handle(self, *args, action, **options):
        self.stdout.write(f"Pruned {prune()} expired Idempotency-Key records.")
