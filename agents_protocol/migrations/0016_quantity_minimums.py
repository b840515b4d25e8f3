"""Quantities are range-checked before any provider is called: cart.add's quantity at least 1,
cart.update's at least 0 (0 removes the line).

Until now only the maximum (1000) was a declared rule and each shop's provider had to refuse
a negative quantity itself. This writes the minimum into existing installs where the parameter
is still the default one (its type is integer, it has no minimum yet and its own default fits),
as agents_protocol.core.defaults declares it for fresh ones; written out here so this
migration never changes.
"""
from django.db import migrations
from django.db.models import F

MINIMUMS = {"cart.add": 1, "cart.update": 0}


def add_minimums(apps, schema_editor):
    CapabilityParam = apps.get_model("agents_protocol", "CapabilityParam")
    changed = 0
    for capability, minimum in MINIMUMS.items():
        params = CapabilityParam.objects.filter(capability__name=capability, name="quantity", type="integer",
                                                minimum=None)
        for param in params:
            if param.default is None or (not isinstance(param.default, bool) and param.default >= minimum):
                param.minimum = minimum
                param.save(update_fields=["minimum"])
                changed += 1
    if changed:
        # Historical models send no signal a worker listens to: move the revision by hand.
        apps.get_model("agents_protocol", "ConfigRevision").objects.filter(pk=1).update(number=F("number") + 1)


def remove_minimums(apps, schema_editor):
    CapabilityParam = apps.get_model("agents_protocol", "CapabilityParam")
    for capability, minimum in MINIMUMS.items():
        CapabilityParam.objects.filter(capability__name=capability, name="quantity", minimum=minimum).update(
            minimum=None)
    apps.get_model("agents_protocol", "ConfigRevision").objects.filter(pk=1).update(number=F("number") + 1)


class Migration(migrations.Migration):
    dependencies = [("agents_protocol", "0015_agent_call_index_order")]

    operations = [migrations.RunPython(add_minimums, remove_minimums)]
