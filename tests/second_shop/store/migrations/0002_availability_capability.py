"""Publish the shop's own capability `availability` (handler: store/capabilities.py).

Capabilities are rows of agents_protocol's configuration, so a data migration adds this
one to every install; staff can change or disable it in admin afterwards. Bumping the
configuration revision makes running servers pick it up on their next request.
"""
from django.db import migrations
from django.db.models import F

ENDPOINT = "/.well-known/agents/api/availability/:item_id"


def add_availability(apps, schema_editor):
    Capability = apps.get_model("agents_protocol", "Capability")
    CapabilityParam = apps.get_model("agents_protocol", "CapabilityParam")
    capability = Capability.objects.create(
        name="availability",
        description="Whether an item is in stock and how soon it ships",
        endpoint=ENDPOINT,
        method="GET",
        position=20,
    )
    CapabilityParam.objects.create(
        capability=capability, name="item_id", type="string", required=True,
        description="Item ID (path parameter, from search or browse)",
    )
    apps.get_model("agents_protocol", "ConfigRevision").objects.update(number=F("number") + 1)


def remove_availability(apps, schema_editor):
    apps.get_model("agents_protocol", "Capability").objects.filter(name="availability").delete()
    apps.get_model("agents_protocol", "ConfigRevision").objects.update(number=F("number") + 1)


class Migration(migrations.Migration):
    dependencies = [
        ("store", "0001_initial"),
        ("agents_protocol", "0002_default_config"),  # the configuration tables and their first rows
    ]

    operations = [migrations.RunPython(add_availability, remove_availability)]
