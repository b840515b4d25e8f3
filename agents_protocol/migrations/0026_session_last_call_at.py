from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agents_protocol', '0025_session_shown_cart'),
    ]

    operations = [
        migrations.AddField(
            model_name='agentsession',
            name='last_call_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
