"""The embedded default's shared cache: diskcache, kept open from one request to the next."""
import os
import time

from diskcache import DjangoCache
from django.core.cache.backends.base import DEFAULT_TIMEOUT

from .cache_dir import make_private_directory
from .write_lock import WriteLock

MISSING = object()
SEEN_KEYS_LIMIT = 10_000  # keys remembered per process; a window's counters of that many clients


class PersistentDiskCache(DjangoCache):
    """diskcache's Django backend, tuned for the rate-limit counters it holds.

    No close() when a request ends: for diskcache that shuts its SQLite files, so the next
    API call opened them again and set them up, about 2 ms of every agent call on the
    benchmark machine (docs/performance.md). The connections are per process and per thread,
    like the database connection Django keeps for CONN_MAX_AGE.

    django-ratelimit adds the window's key before every increment. add() of a key this process
    has seen holding a value answers False from memory until that value expires; other keys are
    looked up with a read (diskcache's own add() takes the write lock to find out). Under the
    bench's load even that read cost about 5% of a detail call (docs/performance.md). This
    process's set(), touch(), delete() and clear() forget what they change. A key removed by
    another process before its expiry may still be reported present here: incr() then stores
    it again, as add() would have, so no count is lost.
    The writes rate limiting makes (incr, and add of a new key) queue on acme.embedded.write_lock
    instead of in SQLite's millisecond sleeps.

    Its directory is made private to this user before diskcache opens it (acme/embedded/cache_dir.py).
    """

    def __init__(self, directory, params):
        make_private_directory(directory)
        super().__init__(directory, params)
        self._write_lock = WriteLock(os.path.join(self.directory, "write-lock"), params.get("DATABASE_TIMEOUT", 1.0))
        self._seen_until = {}  # key (as made) -> when the value this process saw it hold expires

    def close(self, **kwargs):
        pass

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None, **kwargs):
        made_key = self.make_key(key, version=version)
        if self._seen_until.get(made_key, 0) > time.time():
            return False
        stored, expires = super().get(key, MISSING, version=version, expire_time=True)
        if stored is not MISSING:
            self._remember(made_key, expires)
            return False
        with self._write_lock:
            return super().add(key, value, timeout, version, **kwargs)

    def incr(self, key, delta=1, version=None, default=None, retry=True):
        with self._write_lock:
            try:
                return super().incr(key, delta, version, default, retry)
            except ValueError:
                expires = self._seen_until.pop(self.make_key(key, version=version), 0)
                remaining = expires - time.time()
                if remaining <= 0:
                    raise  # missing, as far as this process knows too
                # Gone before its expiry, after add() answered False from memory.
                if super().add(key, delta, remaining, version):
                    return delta
                return super().incr(key, delta, version, default, retry)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None, **kwargs):
        self._forget(key, version)
        return super().set(key, value, timeout, version, **kwargs)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None, **kwargs):
        self._forget(key, version)
        return super().touch(key, timeout, version, **kwargs)

    def delete(self, key, version=None, **kwargs):
        self._forget(key, version)
        return super().delete(key, version, **kwargs)

    def clear(self):
        self._seen_until.clear()
        return super().clear()

    def _forget(self, key, version):
        self._seen_until.pop(self.make_key(key, version=version), None)

    def _remember(self, made_key, expires):
        if expires is None:
            return
        if len(self._seen_until) >= SEEN_KEYS_LIMIT:
            now = time.time()
            self._seen_until = {key: until for key, until in self._seen_until.items() if until > now}
            if len(self._seen_until) >= SEEN_KEYS_LIMIT:
                self._seen_until.clear()
        self._seen_until[made_key] = expires
