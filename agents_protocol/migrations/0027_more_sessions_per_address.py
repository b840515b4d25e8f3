"""An address may hold 20 live sessions by default, not 5: a developer's MCP Inspector runs and test
agents from one machine seldom end theirs. Installs still at the former default get the new one
(agents_protocol.core.defaults declares it for fresh ones; written out here so this migration
never changes).
"""
import django.core.validators
from django.db import migrations, models
from django.db.models import F

FORMER, NOW = 5, 20


def raise_default(apps, schema_editor, forward=True):
    old, new = (FORMER, NOW) if forward else (NOW, FORMER)
    if apps.get_model("agents_protocol", "RateLimitConfig").objects.filter(max_sessions=old).update(max_sessions=new):
        # Historical models send no signal a worker listens to: move the revision by hand.
        apps.get_model("agents_protocol", "ConfigRevision").objects.filter(pk=1).update(number=F("number") + 1)


def lower_default(apps, schema_editor):
    raise_default(apps, schema_editor, forward=False)


class Migration(migrations.Migration):
    dependencies = [("agents_protocol", "0026_session_last_call_at")]

    operations = [
        migrations.AlterField(
            model_name="ratelimitconfig",
            name="max_sessions",
            field=models.PositiveIntegerField(
                default=20, validators=[django.core.validators.MinValueValidator(1)],
                help_text="Concurrent live sessions allowed per client address; at the limit, a new session ends "
                          "the one idle longest if it made no call for 5 minutes (SESSION_IDLE_SECONDS)."),
        ),
        migrations.RunPython(raise_default, lower_default),
    ]
