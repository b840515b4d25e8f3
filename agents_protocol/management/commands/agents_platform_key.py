"""Issue an API key to an agent platform (a new one, or an existing one by name) and print it:

    manage.py agents_platform_key "Agent Co" [--test-mode]

The key is printed once; only its hash is kept. Keys are revoked in admin (Platform API keys)."""
from django.core.management.base import BaseCommand

from agents_protocol.platforms import keys
from agents_protocol.platforms.models import Platform


class Command(BaseCommand):
    help = "Issue an API key to an agent platform (created if new) and print it once."

    def add_arguments(self, parser):
        parser.add_argument("name", help="The platform's name.")
        parser.add_argument("--test-mode", action="store_true",
                            help="A new platform is offered test payment handlers only.")

    def handle(self, *args, name, test_mode, **options):
        platform, _created = Platform.objects.get_or_create(name=name, defaults={"test_mode": test_mode})
        self.stdout.write(keys.issue_key(platform))
