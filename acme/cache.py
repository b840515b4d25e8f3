"""The embedded default's shared cache: diskcache, kept open from one request to the next."""
from diskcache import DjangoCache
from django.core.cache.backends.base import DEFAULT_TIMEOUT


class PersistentDiskCache(DjangoCache):
    """diskcache's Django backend, tuned for the rate-limit counters it holds.

    No close() when a request ends: for diskcache that shuts its SQLite files, so the next
    API call opened them again and set them up, about 2 ms of every agent call on the
    benchmark machine (docs/performance.md). The connections are per process and per thread,
    like the database connection Django keeps for CONN_MAX_AGE.

    add() of a key that already holds a value answers False from a read: diskcache would take
    the shard's write lock to find that out, and django-ratelimit adds before it increments,
    so every counted call queued twice for the lock instead of once.
    """

    def close(self, **kwargs):
        pass

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None, **kwargs):
        if self.has_key(key, version=version):
            return False
        return super().add(key, value, timeout, version, **kwargs)
