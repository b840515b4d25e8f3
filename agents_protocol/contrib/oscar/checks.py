"""System checks of the Oscar integration's settings."""
from django.conf import settings
from django.core import checks

from agents_protocol.contrib.oscar.conf import DEFAULTS, ITEM_ID_CHOICES, get_setting


@checks.register()
def check_settings(app_configs, **kwargs):
    configured = getattr(settings, "AGENTS_PROTOCOL_OSCAR", {})
    if not isinstance(configured, dict):
        return [checks.Error("AGENTS_PROTOCOL_OSCAR must be a dict.", id="agents_protocol_oscar.E001")]
    errors = [
        checks.Error(f"AGENTS_PROTOCOL_OSCAR has an unknown key {key!r}.",
                     hint=f"Known keys: {', '.join(DEFAULTS)}.", id="agents_protocol_oscar.E001")
        for key in configured if key not in DEFAULTS
    ]
    if get_setting("ITEM_ID") not in ITEM_ID_CHOICES:
        errors.append(checks.Error(
            f'AGENTS_PROTOCOL_OSCAR["ITEM_ID"] is {get_setting("ITEM_ID")!r}.',
            hint=f"Use one of: {', '.join(ITEM_ID_CHOICES)}.", id="agents_protocol_oscar.E002"))
    return errors
