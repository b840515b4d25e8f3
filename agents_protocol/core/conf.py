"""The app's settings: one `AGENTS_PROTOCOL` dict in the project's settings, with these defaults.

PROVIDER            dotted path of the shop's provider class (see provider.py). Required for the API.
DEFAULT_SITE        name/description/contact used by the initial migration for the site profile.
DOCUMENT_MAX_AGE    Cache-Control max-age, in seconds, of the discovery documents. 0 makes
                    clients revalidate with If-None-Match every time, which is cheap (304).
MAX_BODY_BYTES      largest accepted API request body; larger ones get 413.
SIGNING_KEY         base64 of a 32-byte Ed25519 seed for audit signatures (e.g. from a secret store).
SIGNING_KEY_FILE    where to keep the seed when SIGNING_KEY is unset: created once with mode 0600,
                    replaced by `manage.py agents_keys rotate`. One of the two is needed for audit.
AUDIT_RETENTION_DAYS  sealed artifacts older than this are removed by `agents_audit prune` (then 404).
TRUSTED_PROXY_COUNT how many reverse proxies in front of the site append to X-Forwarded-For.
                    0 (default) ignores the header: the client address is REMOTE_ADDR, which a
                    client cannot forge. With n, it is the n-th entry from the right.
"""
from django.conf import settings

DEFAULTS = {
    "PROVIDER": None,
    "DEFAULT_SITE": {"name": "My shop", "description": "", "contact": ""},
    "DOCUMENT_MAX_AGE": 0,
    "MAX_BODY_BYTES": 64 * 1024,
    "SIGNING_KEY": None,
    "SIGNING_KEY_FILE": None,
    "AUDIT_RETENTION_DAYS": 30,
    "TRUSTED_PROXY_COUNT": 0,
}


def get_setting(name):
    overrides = getattr(settings, "AGENTS_PROTOCOL", {})
    return overrides.get(name, DEFAULTS[name])
