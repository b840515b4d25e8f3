"""The default descriptions say what is true of any shop: search ranks as the shop's own search
does, and not every shop has variants or counts stock. Changes them where they are still the
demo's words that 0002 and 0017 wrote (the demo site's load_demo_catalog writes those back);
written out here so this migration never changes.
"""
from django.db import migrations
from django.db.models import F

# (capability, parameter or None, the former default, the default now)
DESCRIPTIONS = [
    ("search", None, "Search the product catalog; name matches rank first", "Search the product catalog"),
    ("detail", None, "Get full details for a product, with stock, its variants and its page URL",
     "Get full details for a product and its page URL"),
    ("cart.add", "item_id", "Product ID, or the id of one of its variants (from search, browse or detail)",
     "Product ID (from search, browse or detail)"),
]


def describe_any_shop(apps, schema_editor, forward=True):
    Capability = apps.get_model("agents_protocol", "Capability")
    CapabilityParam = apps.get_model("agents_protocol", "CapabilityParam")
    changed = 0
    for capability, param, former, now in DESCRIPTIONS:
        old, new = (former, now) if forward else (now, former)
        if param is None:
            rows = Capability.objects.filter(name=capability, description=old)
        else:
            rows = CapabilityParam.objects.filter(capability__name=capability, name=param, description=old)
        changed += rows.update(description=new)
    if changed:
        # Historical models send no signal a worker listens to: move the revision by hand.
        apps.get_model("agents_protocol", "ConfigRevision").objects.filter(pk=1).update(number=F("number") + 1)


def describe_the_demo(apps, schema_editor):
    describe_any_shop(apps, schema_editor, forward=False)


class Migration(migrations.Migration):
    dependencies = [("agents_protocol", "0027_more_sessions_per_address")]

    operations = [migrations.RunPython(describe_any_shop, describe_the_demo)]
