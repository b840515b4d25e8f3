"""Settings for the Acme Ceramics site, driven by the environment.

Every variable is documented in README.md ("Environment"). The defaults are the
embedded demo: SQLite in WAL mode under DATA_DIR, DEBUG off, a per-checkout
secret key generated into DATA_DIR on first use.
"""
import os
import secrets
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / "var"))
DATA_DIR.mkdir(parents=True, exist_ok=True)
(DATA_DIR / "static").mkdir(exist_ok=True)


def _embedded_secret_key():
    """A random key kept in DATA_DIR, so the demo never ships a fixed secret."""
    path = DATA_DIR / "secret_key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = os.environ.get("SECRET_KEY") or _embedded_secret_key()
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "acme",
    "agents_protocol",
    "catalog",
    "cart",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "agents_protocol.api.middleware.AgentsApiMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "agents_protocol.middleware.AgentsDiscoveryLinkMiddleware",
]

ROOT_URLCONF = "acme.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
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

WSGI_APPLICATION = "acme.wsgi.application"

SQLITE_OPTIONS = {
    # WAL lets readers proceed while one writer works; IMMEDIATE takes the write
    # lock at BEGIN so concurrent writers queue (busy timeout) instead of failing.
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{DATA_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "600")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = dict(SQLITE_OPTIONS)
    DATABASES["default"].setdefault("TEST", {})["NAME"] = str(DATA_DIR / "test_db.sqlite3")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "media/"
MEDIA_ROOT = DATA_DIR / "media"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "shop@acmeceramics.example.com")
SHOP_CONTACT_EMAIL = os.environ.get("SHOP_CONTACT_EMAIL", "support@acmeceramics.example.com")

# The shop's own rules.
SHOP_CURRENCY = "USD"
CART_MAX_QUANTITY = int(os.environ.get("CART_MAX_QUANTITY", "20"))
CATALOG_PAGE_SIZE = 12
CHECKOUT_TTL_SECONDS = int(os.environ.get("CHECKOUT_TTL_SECONDS", "1800"))
SHOP_PAYMENT_BACKEND = "cart.payments.DemoPaymentBackend"  # demo: no real charge (docs/checkout.md)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
}

AGENTS_PROTOCOL = {
    "PROVIDER": "acme.agents.AcmeProvider",
    # A base64 Ed25519 seed from the environment wins; otherwise one is generated into DATA_DIR.
    "SIGNING_KEY": os.environ.get("AUDIT_SIGNING_KEY") or None,
    "SIGNING_KEY_FILE": DATA_DIR / "audit_signing_key",
    "DEFAULT_SITE": {
        "name": "Acme Ceramics",
        "description": "Handmade ceramic mugs, bowls, vases, plates and planters",
        "contact": SHOP_CONTACT_EMAIL,
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
