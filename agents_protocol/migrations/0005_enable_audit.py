"""Audit trails are on by default (the default configuration in agents_protocol.core.defaults says so)."""
from django.db import migrations
from django.db.models import F


def enable_audit(apps, schema_editor):
    apps.get_model("agents_protocol", "AuditConfig").objects.update_or_create(pk=1, defaults={"enabled": True})
    apps.get_model("agents_protocol", "ConfigRevision").objects.update(number=F("number") + 1)


class Migration(migrations.Migration):
    dependencies = [("agents_protocol", "0004_order_status_capability")]

    operations = [migrations.RunPython(enable_audit, migrations.RunPython.noop)]
