"""Write McpConfig's one row (MCP on, at /mcp), as 0002 writes the other singletons.

Without it the first request that read the configuration created the row, whose save bumped
the configuration revision, so every worker loaded the whole configuration again on its next
request. Values written out here, so this migration never changes with the model's defaults.
"""
from django.db import migrations


def write_row(apps, schema_editor):
    apps.get_model("agents_protocol", "McpConfig").objects.get_or_create(
        pk=1, defaults={"enabled": True, "endpoint": "/mcp"})


class Migration(migrations.Migration):

    dependencies = [
        ("agents_protocol", "0018_site_profile_agent_notes"),
    ]

    operations = [
        migrations.RunPython(write_row, migrations.RunPython.noop),
    ]
