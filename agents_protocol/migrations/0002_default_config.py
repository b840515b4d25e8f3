"""Install the protocol's default configuration (agents_protocol.core.defaults) on a fresh database."""
from django.db import migrations

from agents_protocol.config_io import write_config
from agents_protocol.core.defaults import default_config


def install_defaults(apps, schema_editor):
    write_config(default_config(), apps.get_model, validate=False)
    apps.get_model("agents_protocol", "ConfigRevision").objects.update_or_create(pk=1, defaults={"number": 1})


class Migration(migrations.Migration):
    dependencies = [("agents_protocol", "0001_initial")]

    operations = [migrations.RunPython(install_defaults, migrations.RunPython.noop)]
