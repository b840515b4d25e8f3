"""Settings for the Acme Ceramics site, driven by the environment.

Every variable is documented in docs/deploy.md ("Environment"). The defaults are the
embedded demo: SQLite in WAL mode under DATA_DIR, a diskcache cache in shared memory, DEBUG off, a
per-checkout secret key generated into DATA_DIR on first use. DATABASE_URL and
REDIS_URL move everything shared to PostgreSQL and Redis (docs/deploy.md).
DJANGO_ENV=production turns on HTTPS-only cookies, HSTS and the redirect to HTTPS,
and refuses to start without a strong SECRET_KEY from the environment.
"""
import hashlib
import os
import secrets
import socket
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from acme.agent_notes import AGENT_NOTES
from acme.embedded.cache_dir import default_cache_dir

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name, default, minimum):
    """An integer from the environment; ImproperlyConfigured for one below `minimum` (a negative
    retention would prune orders whose links still work) or for text that is no integer."""
    text = os.environ.get(name, str(default))
    try:
        value = int(text)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {text!r}.") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}.")
    return value


def env_list(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DJANGO_ENV = os.environ.get("DJANGO_ENV", "development")
if DJANGO_ENV not in {"development", "production"}:
    raise ImproperlyConfigured(f"DJANGO_ENV must be 'development' or 'production', not {DJANGO_ENV!r}.")
PRODUCTION = DJANGO_ENV == "production"

DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / "var"))
DATA_DIR.mkdir(parents=True, exist_ok=True)
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", DATA_DIR / "static"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)


def _embedded_secret_key(path):
    """A random key kept in DATA_DIR (at `path`), so the demo never ships a fixed secret.

    Processes starting together on a new DATA_DIR (gunicorn's workers) race to create it: each
    writes a private staging file and hard-links it into place, so the first complete file wins
    and no process reads a half-written one (as agents_protocol/audit/signing.py does).
    """
    if not path.exists():
        staging = path.with_name(f".secret_key.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50))
        try:
            os.link(staging, path)
        except FileExistsError:
            pass  # another process created it first; every process uses that one
        finally:
            staging.unlink()
    return path.read_text().strip()


def _production_secret_key():
    """The key from the environment; a missing, short or Django-placeholder key stops the process."""
    key = os.environ.get("SECRET_KEY", "")
    if len(key) < 50 or len(set(key)) < 5 or key.startswith("django-insecure"):
        raise ImproperlyConfigured(
            "DJANGO_ENV=production needs SECRET_KEY in the environment: at least 50 random characters, "
            "e.g. from: python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )
    return key


SECRET_KEY = _production_secret_key() if PRODUCTION else os.environ.get("SECRET_KEY") or _embedded_secret_key(DATA_DIR / "secret_key")
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
    "django_ratelimit",
    "django_tasks",
    "django_tasks_db",
    "acme",
    "agents_protocol",
    "catalog",
    "cart",
]

MIDDLEWARE = [
    # Outermost: every answer of the site, whichever middleware gives it, carries the Link header
    # to agents.json once (it reads nothing; the health check's answers too).
    "agents_protocol.http.discovery_link.AgentsDiscoveryLinkMiddleware",
    # Next: probes get the truth about the database and cache before host checks or redirects.
    "acme.health.HealthCheckMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "acme.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "agents_protocol.http.middleware.AgentsApiMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
    # lock at BEGIN so concurrent writers queue (acme.embedded.write_lock, then the busy timeout)
    # instead of failing.
    # Reads through a 256 MiB memory map share the OS page cache between workers instead of
    # copying pages in: a 100k-product search reads 1,000 rows in a third less time.
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA mmap_size=268435456;",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{DATA_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "600")),
        conn_health_checks=True,
    )
}
EMBEDDED_DATABASE = DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
if EMBEDDED_DATABASE:
    DATABASES["default"]["ENGINE"] = "acme.embedded.sqlite"  # Django's, with writers queued (acme/embedded/write_lock.py)
    DATABASES["default"]["OPTIONS"] = dict(SQLITE_OPTIONS)
    DATABASES["default"].setdefault("TEST", {})["NAME"] = str(DATA_DIR / "test_db.sqlite3")
else:
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)
    # Behind PgBouncer in transaction pooling, server-side cursors (QuerySet.iterator()) break.
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = env_bool("DISABLE_SERVER_SIDE_CURSORS", False)

# The API's rate-limit counters must be shared by every worker and every instance and
# incremented atomically (django-ratelimit refuses LocMem, file and database caches).
# Embedded: in the "ratelimit" cache, a table of counters in a memory-mapped file shared by
# the processes of one host (acme/embedded/counters.py); the default cache is diskcache, SQLite
# files beside it. Both live in CACHE_DIR, by default a private directory in shared memory
# (acme/embedded/cache_dir.py says why). django-ratelimit's check prints W001 ("not officially
# supported") for the counters' backend, see docs/deploy.md. Scale-out: Redis holds both.
REDIS_URL = os.environ.get("REDIS_URL")
CACHE_DIR = os.environ.get("CACHE_DIR") or str(default_cache_dir(DATA_DIR))
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 2, "SOCKET_TIMEOUT": 2},
        }
    }
    RATELIMIT_USE_CACHE = "default"
else:
    CACHES = {
        "default": {
            "BACKEND": "acme.embedded.cache.PersistentDiskCache",  # diskcache.DjangoCache, kept open between requests
            "LOCATION": CACHE_DIR,
            "DATABASE_TIMEOUT": 1.0,  # seconds a read waits for a writer (writes retry until done)
        },
        "ratelimit": {
            "BACKEND": "acme.embedded.counters.SharedMemoryCounters",
            "LOCATION": os.path.join(CACHE_DIR, "rate-limits.counters"),
            "OPTIONS": {"SLOTS": 65_536},  # 2 MiB; the counters of that many clients at once
        },
    }
    RATELIMIT_USE_CACHE = "ratelimit"



def _shared_secret_or_service(name, why):
    """`name` from the environment; in production on a shared database (several instances may
    serve it), a missing one stops the process: each instance would otherwise quietly use its own."""
    value = os.environ.get(name) or None
    if PRODUCTION and not EMBEDDED_DATABASE and value is None:
        raise ImproperlyConfigured(f"DJANGO_ENV=production with DATABASE_URL needs {name} in the environment: {why}")
    return value


_shared_secret_or_service(
    "REDIS_URL", "without it each instance counts rate limits on its own, so N instances allow N times the limit "
    "(docs/deploy.md).")
# Background tasks (Django's Tasks framework, the django-tasks backport on 5.2): UCP order events
# to platforms' webhooks (agents_protocol/outbound/webhooks.py). Embedded: rows of the database,
# enqueued in the order change's own transaction, run by `manage.py db_worker` beside gunicorn
# (deploy/serve.sh). Scale-out: RQ on Redis (`manage.py rqworker`), enqueued when the change commits.
if REDIS_URL:
    INSTALLED_APPS += ["django_rq", "django_tasks_rq"]
    RQ_QUEUES = {"default": {"URL": REDIS_URL}}
    TASKS = {"default": {"BACKEND": "django_tasks_rq.RQBackend", "QUEUES": ["default"]}}
else:
    TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}


# django-ratelimit's own settings at their defaults, spelled out (RATELIMIT_USE_CACHE above): it
# reads each one on every counted call, and a setting that is absent costs an AttributeError
# each time (about 5 µs a call).
RATELIMIT_ENABLE = True
RATELIMIT_CACHE_PREFIX = "rl:"
RATELIMIT_HASH_ALGORITHM = hashlib.sha256  # the class: a dotted name would be imported on every call
RATELIMIT_FAIL_OPEN = False

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
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "media/"
MEDIA_ROOT = DATA_DIR / "media"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = not PRODUCTION  # production serves what collectstatic gathered

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "shop@acmeceramics.example.com")
SHOP_CONTACT_EMAIL = os.environ.get("SHOP_CONTACT_EMAIL", "support@acmeceramics.example.com")

# The shop's own rules.
SHOP_CURRENCY = "USD"
CART_MAX_QUANTITY = env_int("CART_MAX_QUANTITY", 20, minimum=1)
# The UCP conformance suite's /testing/simulate-shipping/{id} answers only with this secret in
# its Simulation-Secret header; empty (the default) answers 404.
UCP_SIMULATION_SECRET = os.environ.get("UCP_SIMULATION_SECRET", "")
CATALOG_PAGE_SIZE = 12
CHECKOUT_TTL_SECONDS = env_int("CHECKOUT_TTL_SECONDS", 1800, minimum=1)
# What `manage.py shop_prune` keeps (docs/deploy.md, "Upkeep"): closed orders and contact messages.
ORDER_RETENTION_DAYS = env_int("ORDER_RETENTION_DAYS", 90, minimum=1)
CONTACT_RETENTION_DAYS = env_int("CONTACT_RETENTION_DAYS", 90, minimum=1)
# How many products the searches, browse pages and product reads each worker keeps while the
# catalog is unchanged hold between them (catalog/read_cache.py); 0 turns the cache off.
CATALOG_READ_CACHE_SIZE = env_int("CATALOG_READ_CACHE_SIZE", 10000, minimum=0)
SHOP_PAYMENT_BACKEND = "cart.payments.DemoPaymentBackend"  # demo: no real charge (docs/checkout.md)

# `make bench` only (docs/performance.md): BENCH_FLOOR=1 serves GET /bench/floor, a constant JSON
# answer through the full middleware stack, the floor every other case is compared with. Off by default.
BENCH_FLOOR = env_bool("BENCH_FLOOR", False)

# Browsers send only this origin as Referer, never a path: a checkout link's token stays out
# of other requests' Referer headers (and so out of access logs). Form posts keep their Origin.
SECURE_REFERRER_POLICY = "strict-origin"
X_FRAME_OPTIONS = "DENY"

TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0, minimum=0)
# Which instance /healthz names (acme/health.py): a container's host name is its id.
INSTANCE_NAME = os.environ.get("INSTANCE_NAME") or socket.gethostname()
if TRUSTED_PROXY_COUNT:
    # Proxies we trust with X-Forwarded-For also tell us whether the client used HTTPS.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    # agents_protocol's middleware redirects the agents' paths itself: 308, which keeps a POST a POST.
    SECURE_REDIRECT_EXEMPT = [r"^\.well-known/", r"^llms\.txt$", r"^mcp$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", True)

# deploy/gunicorn.conf.py reads it too: a worker stuck longer is replaced.
GUNICORN_TIMEOUT = int(os.environ.get("GUNICORN_TIMEOUT", "30"))

AGENTS_PROTOCOL = {
    "PROVIDER": "acme.agents.AcmeProvider",
    # A call with an Idempotency-Key still running after this long died with its worker: well
    # past gunicorn's timeout, so a slow call and its retry never both run.
    "IDEMPOTENCY_LEASE_SECONDS": 2 * GUNICORN_TIMEOUT,
    # How many reverse proxies append to X-Forwarded-For in front of us; 0 ignores the header.
    "TRUSTED_PROXY_COUNT": TRUSTED_PROXY_COUNT,
    # A base64 Ed25519 seed from the environment wins; otherwise one is generated into DATA_DIR.
    "SIGNING_KEY": _shared_secret_or_service(
        "AUDIT_SIGNING_KEY", "without it each instance signs audit trails with a key of its own, and agents.json "
        "publishes whichever key the instance answering has (docs/deploy.md)."),
    "SIGNING_KEY_FILE": DATA_DIR / "audit_signing_key",
    # The demo's sandbox for agent developers (docs/agent-testing.md): a session named with
    # sandbox:rate-limit gets 3 calls a minute, one named with sandbox:short-session lives 10 s.
    "SANDBOX": {"REQUESTS_PER_MINUTE": 3, "SESSION_TTL_SECONDS": 10},
    "ACP_PRODUCT_FEED": True,  # the demo's catalog is small and public
    # SQLite: one host, so every process that edits or serves the configuration shares a signal in
    # shared memory, and requests read the revision row only when it moved (acme/embedded/stamp.py).
    "REVISION_SIGNAL": "acme.embedded.stamp.SharedMemoryStamp" if EMBEDDED_DATABASE else None,
    # Networks the app's own requests (UCP platform profiles, webhooks) may reach although private or
    # loopback, e.g. 127.0.0.0/8,::1/128 for a platform on this host (the UCP conformance suite's).
    "OUTBOUND_ALLOWED_NETWORKS": env_list("OUTBOUND_ALLOWED_NETWORKS", []),
    # A task backend outside the database (RQ) cannot take part in the order change's transaction.
    "WEBHOOK_ENQUEUE_ON_COMMIT": bool(REDIS_URL),
    # How long an undelivered order event is retried (a site serving the UCP conformance suite, whose
    # webhook receiver listens only during its webhook tests, keeps this to a few seconds).
    "WEBHOOK_MAX_AGE_SECONDS": env_int("WEBHOOK_MAX_AGE_SECONDS", 24 * 3600, minimum=1),
    "DEFAULT_SITE": {
        "name": "Acme Ceramics",
        "description": "Handmade ceramic mugs, bowls, vases, plates and planters",
        "contact": SHOP_CONTACT_EMAIL,
        "agent_notes": AGENT_NOTES,
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact_secrets": {"()": "acme.log_redaction.RedactSecrets"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["redact_secrets"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # runserver's request lines (a local demo): Django gives them a handler of its own, unfiltered.
    "loggers": {"django.server": {"handlers": ["console"], "filters": ["redact_secrets"], "level": "INFO",
                                  "propagate": False}},
}
