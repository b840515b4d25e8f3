"""Settings of "Northwind Goods", a small existing Django shop that installed agents_protocol.

Its own app `store` predates the agents: items with a SKU, a title and a price in cents,
baskets, pending orders. The lines marked "agents_protocol" are all the app asks for
(docs/quickstart-django.md).
"""
import os
from pathlib import Path

import django

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / "var"))
DATA_DIR.mkdir(parents=True, exist_ok=True)

SECRET_KEY = "second-shop-test-project-only-never-deployed-5f0c9a1e7b"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",  # the shop's own API
    "django_ratelimit",  # agents_protocol: its checks look at the cache the API counts in
    "agents_protocol",  # agents_protocol
    "store",
]

MIDDLEWARE = [
    "agents_protocol.http.discovery_link.AgentsDiscoveryLinkMiddleware",  # agents_protocol: Link to agents.json
    "django.middleware.security.SecurityMiddleware",
    "agents_protocol.http.middleware.AgentsApiMiddleware",  # agents_protocol: the agent API
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "shop_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# WAL, immediate transactions and a busy timeout, so parallel agent calls wait for SQLite's write
# lock instead of failing (docs/quickstart-django.md, step 2; check agents_protocol.W003 names what is missing).
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": DATA_DIR / "db.sqlite3",
        "OPTIONS": {"init_command": "PRAGMA journal_mode=WAL;", "transaction_mode": "IMMEDIATE", "timeout": 20},
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The agents' rate-limit counters, shared by every process of this host: diskcache's increment is
# atomic across processes, with no server to run (several hosts: Redis).
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "ratelimit": {"BACKEND": "diskcache.DjangoCache", "LOCATION": DATA_DIR / "ratelimit"},
}
RATELIMIT_USE_CACHE = "ratelimit"

# The shop's own API (Django REST framework, tests/second_shop/requirements.txt): logins
# required, anonymous callers throttled hard. The agent API must not inherit any of it.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.AnonRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"anon": "3/hour"},
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"

# Django 6.1 configures email as MAILERS and deprecates EMAIL_BACKEND.
if django.VERSION >= (6, 1):
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = "shop@northwind.example"

# The shop's own settings.
STORE_CURRENCY = "EUR"
STORE_CONTACT_EMAIL = "hello@northwind.example"
STORE_MAX_LINE_QUANTITY = 10
STORE_CHECKOUT_TTL_SECONDS = 3600

AGENTS_PROTOCOL = {
    "PROVIDER": "store.agents.StoreProvider",
    "SIGNING_KEY_FILE": DATA_DIR / "audit_signing_key",
    "DEFAULT_SITE": {
        "name": "Northwind Goods",
        "description": "Kitchen tools and pantry goods",
        "contact": STORE_CONTACT_EMAIL,
    },
}
