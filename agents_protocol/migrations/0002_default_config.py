"""Install the protocol's default configuration (agents_protocol.defaults) on a fresh database."""
import copy

from django.db import migrations

from agents_protocol.conf import get_setting
from agents_protocol.config_io import write_config
from agents_protocol.defaults import DEFAULT_CONFIG


def install_defaults(apps, schema_editor):
    data = copy.deepcopy(DEFAULT_CONFIG)
    data["site"].update(get_setting("DEFAULT_SITE"))
    write_config(data, apps.get_model, validate=False)
    apps.get_model("agents_protocol", "ConfigRevision").objects.update_or_create(pk=1, defaults={"number": 1})


class Migration(migrations.Migration):
    dependencies = [("agents_protocol", "0001_initial")]

    operations = [migrations.RunPython(install_defaults, migrations.RunPython.noop)]
