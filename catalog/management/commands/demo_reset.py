"""`manage.py demo_reset`: put the public demo's catalog back as shipped (docs/deploy.md, "Upkeep").

Every demo product and variant gets its demo price, stock and text again, and every test piece
of docs/agent-testing.md its documented state. Products staff added and the agents configuration
are left alone. Idempotent: a second run changes nothing.
"""
from django.core.management.base import BaseCommand
from django.db import transaction

from catalog.demo import load_demo_catalog
from catalog.scenarios import install_scenarios


class Command(BaseCommand):
    help = "Restore the demo catalog (products, variants, stock, prices) and the test pieces. Safe to run repeatedly."

    def handle(self, *args, **options):
        with transaction.atomic():
            summary = load_demo_catalog()
            install_scenarios()
        self.stdout.write(self.style.SUCCESS(f"{summary}; the test pieces restored"))
