"""The app's settings: one `AGENTS_PROTOCOL` dict in the project's settings, with these defaults.

PROVIDER            dotted path of the shop's provider class (see provider.py). Required for the API.
DEFAULT_SITE        name/description/contact used by the initial migration for the site profile.
DOCUMENT_MAX_AGE    Cache-Control max-age, in seconds, of the discovery documents. 0 makes
                    clients revalidate with If-None-Match every time, which is cheap (304).
MAX_BODY_BYTES      largest accepted API request body; larger ones get 413.
"""
from django.conf import settings

DEFAULTS = {
    "PROVIDER": None,
    "DEFAULT_SITE": {"name": "My shop", "description": "", "contact": ""},
    "DOCUMENT_MAX_AGE": 0,
    "MAX_BODY_BYTES": 64 * 1024,
}


def get_setting(name):
    overrides = getattr(settings, "AGENTS_PROTOCOL", {})
    return overrides.get(name, DEFAULTS[name])
