"""max_sessions counts a session's client network (an IPv6 address by its /64), as the rate limit does."""
import ipaddress

from django.db import migrations, models


def network_of(address_text):
    """The address, an IPv6 one by its /64: written here as it stands today, not imported."""
    address = ipaddress.ip_address(address_text)
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def fill_networks(apps, schema_editor):
    AgentSession = apps.get_model("agents_protocol", "AgentSession")
    addresses = AgentSession.objects.filter(client_network="").values_list("client_address", flat=True).distinct()
    for address in list(addresses):
        AgentSession.objects.filter(client_network="", client_address=address).update(client_network=network_of(address))


class Migration(migrations.Migration):

    dependencies = [
        ('agents_protocol', '0020_agent_call_calls'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='agentsession',
            name='agents_prot_client__d49934_idx',
        ),
        migrations.AddField(
            model_name='agentsession',
            name='client_network',
            field=models.CharField(blank=True, editable=False, max_length=64),
        ),
        migrations.RunPython(fill_networks, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name='agentsession',
            index=models.Index(fields=['client_network', 'expires_at'], name='agents_prot_client__33069c_idx'),
        ),
    ]
