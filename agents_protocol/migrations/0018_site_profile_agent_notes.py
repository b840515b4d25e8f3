"""The site profile's notes for agents (published in llms.txt), first filled from the project's
AGENTS_PROTOCOL["DEFAULT_SITE"]["agent_notes"] when it has some and staff wrote none."""
from django.conf import settings
from django.db import migrations, models


def fill_default_notes(apps, schema_editor):
    notes = getattr(settings, "AGENTS_PROTOCOL", {}).get("DEFAULT_SITE", {}).get("agent_notes", "")
    if notes:
        apps.get_model("agents_protocol", "SiteProfile").objects.filter(pk=1, agent_notes="").update(agent_notes=notes)


class Migration(migrations.Migration):

    dependencies = [
        ("agents_protocol", "0017_variant_descriptions"),
    ]

    operations = [
        migrations.AddField(
            model_name="siteprofile",
            name="agent_notes",
            field=models.TextField(
                blank=True, max_length=4000,
                help_text="Markdown for agents, published in llms.txt after the limits: e.g. test data or "
                "scenarios a demo offers. Bold labels and lists, no headings (# …): llms.txt keeps headings "
                "for its links.",
            ),
        ),
        migrations.RunPython(fill_default_notes, migrations.RunPython.noop),
    ]
