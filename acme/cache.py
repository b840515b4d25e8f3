"""The embedded default's shared cache: diskcache, kept open from one request to the next."""
import os

from diskcache import DjangoCache
from django.core.cache.backends.base import DEFAULT_TIMEOUT

from .cache_dir import make_private_directory
from .write_lock import WriteLock


class PersistentDiskCache(DjangoCache):
    """diskcache's Django backend, tuned for the rate-limit counters it holds.

    No close() when a request ends: for diskcache that shuts its SQLite files, so the next
    API call opened them again and set them up, about 2 ms of every agent call on the
    benchmark machine (docs/performance.md). The connections are per process and per thread,
    like the database connection Django keeps for CONN_MAX_AGE.

    add() of a key that already holds a value answers False from a read: diskcache would take
    the shard's write lock to find that out, and django-ratelimit adds before it increments.
    The writes rate limiting makes (incr, and add of a new key) queue on acme.write_lock
    instead of in SQLite's millisecond sleeps.

    Its directory is made private to this user before diskcache opens it (acme/cache_dir.py).
    """

    def __init__(self, directory, params):
        make_private_directory(directory)
        super().__init__(directory, params)
        self._write_lock = WriteLock(os.path.join(self.directory, "write-lock"), params.get("DATABASE_TIMEOUT", 1.0))

    def close(self, **kwargs):
        pass

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None, **kwargs):
        if self.has_key(key, version=version):
            return False
        with self._write_lock:
            return super().add(key, value, timeout, version, **kwargs)

    def incr(self, key, delta=1, version=None, **kwargs):
        with self._write_lock:
            return super().incr(key, delta, version, **kwargs)
