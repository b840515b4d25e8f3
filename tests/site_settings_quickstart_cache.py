"""The site's settings with the rate-limit cache the quickstarts give a shop on one host:
diskcache's DjangoCache, whose increment is atomic across processes (docs/integration.md)."""
import os

from acme.settings import *
from acme.settings import CACHE_DIR, CACHES

CACHES = {**CACHES, "ratelimit": {"BACKEND": "diskcache.DjangoCache",
                                  "LOCATION": os.path.join(CACHE_DIR, "quickstart-rate-limits")}}
RATELIMIT_USE_CACHE = "ratelimit"
