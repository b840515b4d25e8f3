"""System checks: a configuration the API cannot serve is reported by `manage.py check`."""
from django.core.checks import Error, Warning, register
from django.db import DatabaseError
from django.utils.module_loading import import_string

from .capabilities import registered_names
from .conf import get_setting
from .models import Capability


@register()
def provider_configured(app_configs, **kwargs):
    path = get_setting("PROVIDER")
    if not path:
        return [Error(
            'AGENTS_PROTOCOL["PROVIDER"] is not set.',
            hint="Point it at your class implementing agents_protocol.provider.ShopProvider.",
            id="agents_protocol.E001",
        )]
    try:
        import_string(path)
    except ImportError as error:
        return [Error(f"Cannot import the provider {path!r}: {error}", id="agents_protocol.E002")]
    return []


@register()
def every_enabled_capability_has_a_handler(app_configs, **kwargs):
    try:
        enabled = list(Capability.objects.filter(enabled=True).values_list("name", flat=True))
    except DatabaseError:
        return []  # not migrated yet: nothing is published either
    missing = sorted(set(enabled) - registered_names())
    return [
        Warning(
            f"The enabled capability {name!r} has no handler; agents calling it get 501 not_implemented.",
            hint="Register one with agents_protocol.capabilities.register, or disable it in admin.",
            id="agents_protocol.W001",
        )
        for name in missing
    ]
