"""`manage.py load_demo_catalog`: the catalog's command, then what the demo tells agents of its
capabilities beyond the protocol's defaults, which are true of any shop. Only a description that
is still the default is replaced, so what staff wrote in admin stays. Through the app's own
`agents_config` export and import, as an operator would."""
import json
import tempfile
from io import StringIO

from django.core.management import call_command

from catalog.management.commands.load_demo_catalog import Command as CatalogCommand

# (capability, parameter or None, the protocol's default, the demo's words)
CAPABILITY_TEXTS = [
    ("search", None, "Search the product catalog", "Search the product catalog; name matches rank first"),
    ("detail", None, "Get full details for a product and its page URL",
     "Get full details for a product, with stock, its variants and its page URL"),
    ("cart.add", "item_id", "Product ID (from search, browse or detail)",
     "Product ID, or the id of one of its variants (from search, browse or detail)"),
]


class Command(CatalogCommand):
    help = CatalogCommand.help + " Describes the capabilities as the demo has them."

    def handle(self, *args, **options):
        super().handle(*args, **options)
        describe_demo_capabilities()


def describe_demo_capabilities():
    exported = StringIO()
    call_command("agents_config", "export", stdout=exported)
    config = json.loads(exported.getvalue())
    if not any([demo_words(capability) for capability in config["capabilities"]]):
        return
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as file:
        json.dump(config, file)
        file.flush()
        call_command("agents_config", "import", file.name, stdout=StringIO())


def demo_words(capability):
    """Give `capability` (as exported) the demo's words where it has the defaults; whether it changed."""
    changed = False
    for name, param, default, demo in CAPABILITY_TEXTS:
        described = capability if param is None else capability.get("params", {}).get(param, {})
        if capability["name"] == name and described.get("description") == default:
            described["description"] = demo
            changed = True
    return changed
