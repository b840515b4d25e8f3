"""System checks of the Oscar integration's settings, from their declaration (conf.py)."""
from django.core import checks

from agents_protocol.contrib.oscar.conf import oscar_settings


@checks.register()
def check_settings(app_configs, **kwargs):
    return oscar_settings.key_errors() + oscar_settings.wrong_value_errors()
