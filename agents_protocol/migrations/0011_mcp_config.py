from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agents_protocol', '0010_endpoints_under_well_known'),
    ]

    operations = [
        migrations.CreateModel(
            name='McpConfig',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('enabled', models.BooleanField(default=True, help_text='Serve the capabilities as MCP tools.')),
                ('endpoint', models.CharField(choices=[('/mcp', '/mcp'), ('/.well-known/agents/mcp', '/.well-known/agents/mcp')], default='/mcp', help_text='Where MCP clients connect (Streamable HTTP).', max_length=40)),
            ],
            options={
                'verbose_name': 'MCP settings',
                'verbose_name_plural': 'MCP settings',
            },
        ),
    ]
