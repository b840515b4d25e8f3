"""`manage.py open_demo_commerce`: the public demo as the place to test a UCP or ACP agent against
(`make demo` runs it after load_demo_catalog). UCP on, ACP on with 3-D Secure, the test payment handler
(`mock_payment_handler`: its tokens on /developers/) when admin lists none, and a standard
shipping rate when the shop has none, so a checkout can be completed. Through the app's own
`agents_config` export and import, as an operator would; what staff configured stays."""
import json
import tempfile
from decimal import Decimal
from io import StringIO

from django.core.management import call_command
from django.core.management.base import BaseCommand

from acme.agents import TEST_PAYMENT_HANDLER
from cart.models import ShippingRate

GUIDE = "/developers/#acp"  # where the handler's tokens are documented
TEST_HANDLER = {"handler_id": TEST_PAYMENT_HANDLER, "name": "dev.acme.test_payment", "version": "2026-04-17",
                "spec": GUIDE, "config_schema": GUIDE, "instrument_schemas": [GUIDE], "config": {"test_mode": True}}
STANDARD_RATE = {"rate_id": "standard", "country_code": ShippingRate.DEFAULT_COUNTRY, "service_level": "standard",
                 "title": "Standard shipping", "price": Decimal("5.00")}


class Command(BaseCommand):
    help = "Turn UCP and ACP on for the demo, with the test payment handler and a shipping rate if none exist."

    def handle(self, *args, **options):
        if not ShippingRate.objects.exists():
            ShippingRate.objects.create(**STANDARD_RATE)
        exported = StringIO()
        call_command("agents_config", "export", stdout=exported)
        config = json.loads(exported.getvalue())
        config["ucp"]["enabled"] = True
        config["acp"] = {**config["acp"], "enabled": True, "intervention_types": ["3ds"]}
        if not config["ucp"]["payment_handlers"]:
            config["ucp"]["payment_handlers"] = [TEST_HANDLER]
        with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as file:
            json.dump(config, file)
            file.flush()
            call_command("agents_config", "import", file.name, stdout=StringIO())
        self.stdout.write(self.style.SUCCESS("UCP and ACP are on: /.well-known/ucp; ACP test keys at /developers/."))
