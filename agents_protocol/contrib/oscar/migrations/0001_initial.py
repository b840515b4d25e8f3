"""The link between an agent session and its Oscar baskets.

It depends on the first migration of Oscar's basket and order apps, where their models are
created, so a shop that forked those apps (and carries their migrations) migrates it too.
"""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('agents_protocol', '0001_initial'),
        ('basket', '0001_initial'),
        ('order', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='AgentBasket',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reference', models.CharField(blank=True, max_length=40, null=True, unique=True)),
                ('link_token_hash', models.CharField(blank=True, max_length=64, null=True, unique=True)),
                ('link_expires_at', models.DateTimeField(blank=True, null=True)),
                ('link_opened_at', models.DateTimeField(blank=True, null=True)),
                ('created', models.DateTimeField(auto_now_add=True)),
                ('basket', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='basket.basket')),
                ('checkout_basket', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='basket.basket')),
                ('order', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='order.order')),
                ('session', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='agents_protocol.agentsession')),
            ],
            options={
                'constraints': [models.UniqueConstraint(condition=models.Q(('reference', None)), fields=('session',), name='agents_protocol_oscar_one_open_basket')],
            },
        ),
    ]
