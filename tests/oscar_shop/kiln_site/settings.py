"""Settings of "Kiln & Co", a django-oscar 4 shop built the way Oscar's guide builds one
("Building your own shop": Oscar's defaults, its apps, context processors and middleware,
Haystack's simple backend, ATOMIC_REQUESTS), with the partner app forked for its own pricing
strategy (UK VAT) and the shipping app for its charges. The lines marked "agents_protocol" are
all the app asks for (docs/quickstart-oscar.md).

Without POSTGRES_PORT it runs on SQLite; with POSTGRES_HOST/POSTGRES_PORT (noxfile.py starts
the server) on PostgreSQL.
"""
import os
from pathlib import Path

from oscar.defaults import *  # noqa: F403  (Oscar's guide: "import all of Oscar's default settings")

from agents_protocol.contrib.oscar.dashboard import AGENTS_MENU_ITEM  # agents_protocol

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / "var"))
DATA_DIR.mkdir(parents=True, exist_ok=True)

SECRET_KEY = "kiln-and-co-oscar-test-project-only-never-deployed-8d1f4c2a9e"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sites",
    "django.contrib.flatpages",
    "oscar.config.Shop",
    "oscar.apps.analytics.apps.AnalyticsConfig",
    "oscar.apps.checkout.apps.CheckoutConfig",
    "oscar.apps.address.apps.AddressConfig",
    "kiln_apps.shipping.apps.ShippingConfig",  # forked: repository.py ships with the dashboard's charges
    "oscar.apps.catalogue.apps.CatalogueConfig",
    "oscar.apps.catalogue.reviews.apps.CatalogueReviewsConfig",
    "oscar.apps.communication.apps.CommunicationConfig",
    "kiln_apps.partner.apps.PartnerConfig",  # forked (oscar_fork_app): strategy.py prices with UK VAT
    "oscar.apps.basket.apps.BasketConfig",
    "oscar.apps.payment.apps.PaymentConfig",
    "oscar.apps.offer.apps.OfferConfig",
    "oscar.apps.order.apps.OrderConfig",
    "oscar.apps.customer.apps.CustomerConfig",
    "oscar.apps.search.apps.SearchConfig",
    "oscar.apps.voucher.apps.VoucherConfig",
    "oscar.apps.wishlists.apps.WishlistsConfig",
    "oscar.apps.dashboard.apps.DashboardConfig",
    "oscar.apps.dashboard.reports.apps.ReportsDashboardConfig",
    "oscar.apps.dashboard.users.apps.UsersDashboardConfig",
    "oscar.apps.dashboard.orders.apps.OrdersDashboardConfig",
    "oscar.apps.dashboard.catalogue.apps.CatalogueDashboardConfig",
    "oscar.apps.dashboard.offers.apps.OffersDashboardConfig",
    "oscar.apps.dashboard.partners.apps.PartnersDashboardConfig",
    "oscar.apps.dashboard.pages.apps.PagesDashboardConfig",
    "oscar.apps.dashboard.ranges.apps.RangesDashboardConfig",
    "oscar.apps.dashboard.reviews.apps.ReviewsDashboardConfig",
    "oscar.apps.dashboard.vouchers.apps.VouchersDashboardConfig",
    "oscar.apps.dashboard.communications.apps.CommunicationsDashboardConfig",
    "oscar.apps.dashboard.shipping.apps.ShippingDashboardConfig",
    "widget_tweaks",
    "haystack",
    "treebeard",
    "sorl.thumbnail",
    "django_tables2",
    "django_ratelimit",  # agents_protocol: its checks look at the cache the API counts in
    "agents_protocol",  # agents_protocol
    "agents_protocol.contrib.oscar",  # agents_protocol: the ready-made Oscar provider
    "pottery",  # the shop's catalogue (pottery/catalogue.py)
]

SITE_ID = 1

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
    "oscar.apps.basket.middleware.BasketMiddleware",
    "django.contrib.flatpages.middleware.FlatpageFallbackMiddleware",
]

AUTHENTICATION_BACKENDS = (
    "oscar.apps.customer.auth_backends.EmailBackend",
    "django.contrib.auth.backends.ModelBackend",
)

ROOT_URLCONF = "kiln_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "oscar.apps.search.context_processors.search_form",
                "oscar.apps.checkout.context_processors.checkout",
                "oscar.apps.communication.notifications.context_processors.notifications",
                "oscar.core.context_processors.metadata",
            ],
        },
    },
]

HAYSTACK_CONNECTIONS = {"default": {"ENGINE": "haystack.backends.simple_backend.SimpleEngine"}}


def database():
    """SQLite tuned for concurrent writers (docs/quickstart-oscar.md), or PostgreSQL."""
    if os.environ.get("POSTGRES_PORT"):
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": "kiln",
            "USER": "postgres",
            "HOST": os.environ.get("POSTGRES_HOST", "127.0.0.1"),
            "PORT": os.environ["POSTGRES_PORT"],
            "ATOMIC_REQUESTS": True,
        }
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": DATA_DIR / "db.sqlite3",
        "ATOMIC_REQUESTS": True,
        # agents_protocol: parallel agent calls write at once; SQLite's defaults answer them
        # "database is locked". WAL lets readers run beside the writer, IMMEDIATE takes the
        # write lock at BEGIN (no deadlocked upgrades), and writers wait up to 20 s for it.
        "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20, "init_command": "PRAGMA journal_mode=WAL;"},
        # A file, not Django's in-memory test database, so the live server's threads each
        # have their own connection and really run in parallel.
        "TEST": {"NAME": DATA_DIR / "test.sqlite3"},
    }


DATABASES = {"default": database()}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

# The agents' rate-limit counters, shared by every process of this host: diskcache's increment is
# atomic across processes, with no server to run (several hosts: Redis).
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "ratelimit": {"BACKEND": "diskcache.DjangoCache", "LOCATION": DATA_DIR / "ratelimit"},
}
RATELIMIT_USE_CACHE = "ratelimit"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"
MEDIA_URL = "/media/"
MEDIA_ROOT = DATA_DIR / "media"
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
DEFAULT_FROM_EMAIL = "shop@kiln.example"

# Oscar's settings.
OSCAR_SHOP_NAME = "Kiln & Co"
OSCAR_DEFAULT_CURRENCY = "GBP"
OSCAR_ALLOW_ANON_CHECKOUT = True
OSCAR_INITIAL_ORDER_STATUS = "Pending"
OSCAR_INITIAL_LINE_STATUS = "Pending"
OSCAR_ORDER_STATUS_PIPELINE = {
    "Pending": ("Being processed", "Cancelled"),
    "Being processed": ("Shipped", "Cancelled"),
    "Shipped": (),
    "Cancelled": (),
}
# agents_protocol: "Agents" in the dashboard's menu, linking to the agent settings in admin.
OSCAR_DASHBOARD_NAVIGATION = [*OSCAR_DASHBOARD_NAVIGATION, AGENTS_MENU_ITEM]  # noqa: F405

AGENTS_PROTOCOL = {
    "PROVIDER": "agents_protocol.contrib.oscar.provider.OscarProvider",
    "SIGNING_KEY_FILE": DATA_DIR / "audit_signing_key",
    "DEFAULT_SITE": {
        "name": "Kiln & Co",
        "description": "Hand-thrown stoneware: mugs, bowls and vases",
        "contact": "hello@kiln.example",
    },
}
AGENTS_PROTOCOL_OSCAR = {
    "ITEM_ID": "upc",  # agents know items by their UPC ("pk": by primary key, the default)
}
