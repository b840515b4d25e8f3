"""Parameters declare every rule the server enforces: numeric bounds, text lengths and a format."""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agents_protocol', '0007_audit_event_lean_indexes'),
    ]

    operations = [
        migrations.AddField(
            model_name='capabilityparam',
            name='format',
            field=models.CharField(blank=True, choices=[('', 'any'), ('email', 'email'), ('uri', 'uri'), ('date-time', 'date-time')], db_default='', default='', help_text="What the text must be (string); email follows Django's validate_email.", max_length=20),
        ),
        migrations.AddField(
            model_name='capabilityparam',
            name='max_length',
            field=models.PositiveIntegerField(blank=True, help_text='Most characters accepted (string).', null=True, verbose_name='max length'),
        ),
        migrations.AddField(
            model_name='capabilityparam',
            name='maximum',
            field=models.FloatField(blank=True, help_text='Largest value accepted (integer, number).', null=True),
        ),
        migrations.AddField(
            model_name='capabilityparam',
            name='min_length',
            field=models.PositiveIntegerField(blank=True, help_text='Fewest characters (string). Set, the text is trimmed of surrounding whitespace first.', null=True, verbose_name='min length'),
        ),
        migrations.AddField(
            model_name='capabilityparam',
            name='minimum',
            field=models.FloatField(blank=True, help_text='Smallest value accepted (integer, number).', null=True),
        ),
    ]
