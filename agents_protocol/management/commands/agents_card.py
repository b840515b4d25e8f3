"""`manage.py agents_card [--format a2a|registry] [--origin URL]`: print the site's Agent Card.

`a2a` is the A2A v1.0 card served at /.well-known/agent-card.json; `registry` is the
variant some A2A registries take (seed 004: securitySchemes as a list, an `interface`).
"""
import json

from django.core.management.base import BaseCommand, CommandError

from agents_protocol.core.config import load_config
from agents_protocol.core.examples import capture_examples
from agents_protocol.documents.a2a_card import build_agent_card, build_registry_card

BUILDERS = {"a2a": build_agent_card, "registry": build_registry_card}


class Command(BaseCommand):
    help = "Print the Agent Card built from the agents configuration, in the A2A or the registry format."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=BUILDERS, default="a2a", help="Card format (default: a2a).")
        parser.add_argument("--origin", help="Origin such as https://shop.example, for a site profile "
                                             "without a URL (the profile's URL wins).")

    def handle(self, *args, format, origin, **options):
        config = load_config()
        origin = (origin or config.site.url).rstrip("/")
        if not origin:
            raise CommandError("The site profile has no URL; pass --origin https://your.shop.")
        card = BUILDERS[format](config, origin, capture_examples(config, origin))
        self.stdout.write(json.dumps(card, indent=2, ensure_ascii=False))
