"""A capability may have a limit of its own, calls per hour per client address, on top of the
site's rate limit. contact sends the shop an email on every call, so
existing installs where it has none get the default's 10 (agents_protocol.core.defaults
declares it for fresh ones; written out here so this migration never changes).
"""
import django.core.validators
from django.db import migrations, models
from django.db.models import F

CONTACT_CALLS_PER_HOUR = 10


def limit_contact(apps, schema_editor):
    Capability = apps.get_model("agents_protocol", "Capability")
    if Capability.objects.filter(name="contact", calls_per_hour=None).update(calls_per_hour=CONTACT_CALLS_PER_HOUR):
        # Historical models send no signal a worker listens to: move the revision by hand.
        apps.get_model("agents_protocol", "ConfigRevision").objects.filter(pk=1).update(number=F("number") + 1)


class Migration(migrations.Migration):

    dependencies = [
        ("agents_protocol", "0023_config_guards"),
    ]

    operations = [
        migrations.AddField(
            model_name="capability",
            name="calls_per_hour",
            field=models.PositiveIntegerField(
                blank=True, null=True, validators=[django.core.validators.MinValueValidator(1)],
                help_text="At most this many calls an hour from one client address, with or without a session, on "
                "top of the site's rate limit: e.g. for contact, which sends the shop an email. Empty: the site's "
                "limit only.",
            ),
        ),
        migrations.RunPython(limit_contact, migrations.RunPython.noop),
    ]
