from django.core.management.base import BaseCommand

from catalog.demo import load_demo_catalog


class Command(BaseCommand):
    help = "Create or refresh the Acme Ceramics demo catalog. Safe to run repeatedly."
    # `make run` runs these right after migrate, which has just run the system checks.
    requires_system_checks = []

    def handle(self, *args, **options):
        summary = load_demo_catalog()
        self.stdout.write(self.style.SUCCESS(str(summary)))
