from django.core.management.base import BaseCommand

from catalog.demo import load_demo_catalog
from catalog.scenarios import install_scenarios


class Command(BaseCommand):
    help = "Create or refresh the Acme Ceramics demo catalog and its test pieces. Safe to run repeatedly."
    # `make run` runs these right after migrate, which has just run the system checks.
    requires_system_checks = []

    def handle(self, *args, **options):
        summary = load_demo_catalog()
        install_scenarios()
        self.stdout.write(self.style.SUCCESS(f"{summary}; the test pieces of docs/agent-testing.md restored"))
