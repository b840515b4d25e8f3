"""The site's settings, except that a worker writes its kept activity calls by age only after an
hour: within a test, only a full buffer (500 calls) or the worker's exit writes them."""
from acme.settings import *
from acme.settings import AGENTS_PROTOCOL

AGENTS_PROTOCOL = {**AGENTS_PROTOCOL, "ACTIVITY_FLUSH_SECONDS": 3600}
