"""Agents learn of variants from the default configuration's words: detail lists a product's
variants, and cart.add takes a variant's id (a product with variants is sold only as one of them).

Changes the two default descriptions where they are still the default ones, as
agents_protocol.core.defaults now has them; written out here so this migration never changes.
"""
from django.db import migrations
from django.db.models import F

DETAIL = ("Get full details for a product, with stock and its page URL",
          "Get full details for a product, with stock, its variants and its page URL")
CART_ADD_ITEM_ID = ("Product ID (from search, browse or detail)",
                    "Product ID, or the id of one of its variants (from search, browse or detail)")


def describe_variants(apps, schema_editor, forward=True):
    Capability = apps.get_model("agents_protocol", "Capability")
    CapabilityParam = apps.get_model("agents_protocol", "CapabilityParam")
    (detail_from, detail_to), (item_from, item_to) = (pair if forward else pair[::-1] for pair in (DETAIL, CART_ADD_ITEM_ID))
    changed = Capability.objects.filter(name="detail", description=detail_from).update(description=detail_to)
    changed += CapabilityParam.objects.filter(capability__name="cart.add", name="item_id",
                                              description=item_from).update(description=item_to)
    if changed:
        # Historical models send no signal a worker listens to: move the revision by hand.
        apps.get_model("agents_protocol", "ConfigRevision").objects.filter(pk=1).update(number=F("number") + 1)


def forget_variants(apps, schema_editor):
    describe_variants(apps, schema_editor, forward=False)


class Migration(migrations.Migration):
    dependencies = [("agents_protocol", "0016_quantity_minimums")]

    operations = [migrations.RunPython(describe_variants, forget_variants)]
