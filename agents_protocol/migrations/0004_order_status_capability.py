"""Add the order.status capability to databases installed before it was a default.

A fresh database already has it from 0002 (agents_protocol.core.defaults); this leaves it
alone, and also an install where another capability took GET /order/status (staff can
add it in admin then). It goes right after checkout and into no flow. The entry is
written out here, not read from defaults.py, so this migration never changes later.
"""
from django.db import migrations
from django.db.models import F

ENDPOINT = "/.well-known/agents/api/order/status"
CAPABILITY = {
    "name": "order.status",
    "description": "See whether your human completed checkout: pending, confirmed, declined, expired or cancelled",
    "endpoint": ENDPOINT,
    "method": "GET",
    "requires_session": True,
    "human_handoff": False,
    "enabled": True,
}
ORDER_ID = {
    "name": "order_id",
    "type": "string",
    "required": False,
    "description": "One order's id (from checkout); omit it to list this session's orders",
}


def add_order_status(apps, schema_editor):
    Capability = apps.get_model("agents_protocol", "Capability")
    CapabilityParam = apps.get_model("agents_protocol", "CapabilityParam")
    ConfigRevision = apps.get_model("agents_protocol", "ConfigRevision")
    taken = Capability.objects.filter(endpoint=ENDPOINT, method="GET").exists()
    if taken or Capability.objects.filter(name=CAPABILITY["name"]).exists():
        return
    position = _position_after_checkout(Capability)
    Capability.objects.filter(position__gte=position).update(position=F("position") + 1)
    capability = Capability.objects.create(position=position, **CAPABILITY)
    CapabilityParam.objects.create(capability=capability, position=0, **ORDER_ID)
    # Historical models send no signal a worker listens to: move the revision by hand.
    ConfigRevision.objects.filter(pk=1).update(number=F("number") + 1)


def _position_after_checkout(Capability):
    checkout = Capability.objects.filter(name="checkout").first()
    if checkout is not None:
        return checkout.position + 1
    last = Capability.objects.order_by("-position").first()
    return last.position + 1 if last else 0


class Migration(migrations.Migration):
    dependencies = [("agents_protocol", "0003_audit_trail")]

    operations = [migrations.RunPython(add_order_status, migrations.RunPython.noop)]
