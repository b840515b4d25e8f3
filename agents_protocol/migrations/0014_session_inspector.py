"""The session inspector (issue 20): each session's inspector secret as its hash, and the sentence a
refused call was told beside its audit event (outside the hashed event)."""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("agents_protocol", "0013_checkout_handoff"),
    ]

    operations = [
        migrations.AddField(
            model_name="agentsession",
            name="inspect_hash",
            field=models.CharField(blank=True, db_index=True, max_length=64),
        ),
        migrations.AddField(
            model_name="auditevent",
            name="hint",
            field=models.TextField(blank=True, db_default="", default=""),
        ),
    ]
