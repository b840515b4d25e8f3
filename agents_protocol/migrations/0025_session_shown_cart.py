from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agents_protocol', '0024_capability_calls_per_hour'),
    ]

    operations = [
        migrations.AddField(
            model_name='agentsession',
            name='shown_cart',
            field=models.JSONField(blank=True, null=True),
        ),
    ]
