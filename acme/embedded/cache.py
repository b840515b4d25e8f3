"""The embedded default's shared cache: diskcache, kept open from one request to the next.

The API's rate-limit counters are not here but in acme/embedded/counters.py; this is Django's
default cache, for whatever else the site keeps (the health probe's key, a shop's own counters).
"""
import os
import sqlite3
import time

from diskcache import DjangoCache
from diskcache.core import EVICTION_POLICY, MODE_RAW
from django.core.cache.backends.base import DEFAULT_TIMEOUT

from .cache_dir import make_private_directory
from .write_lock import WriteLock

MISSING = object()
SEEN_KEYS_LIMIT = 10_000  # keys remembered per process; a window's counters of that many clients
# An unexpired integer counter, incremented as diskcache's incr() would (store_time moves too).
# The keys Django makes are text, which diskcache stores raw; RETURNING needs SQLite 3.35.
COUNT_IN_PLACE = (
    "UPDATE Cache SET value = value + ?, store_time = ?"
    f" WHERE key = ? AND raw = 1 AND mode = {MODE_RAW} AND typeof(value) = 'integer'"
    " AND (expire_time IS NULL OR expire_time > ?) RETURNING value"
)
RETURNING_SUPPORTED = sqlite3.sqlite_version_info >= (3, 35, 0)


class PersistentDiskCache(DjangoCache):
    """diskcache's Django backend, tuned for counters (the rate limits were counted here until
    acme/embedded/counters.py took them over).

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
    incr() of a counter that is there is one autocommitted UPDATE … RETURNING on its shard, where
    diskcache's own takes a transaction of a SELECT and an UPDATE; a counter that is missing or
    expired (or SQLite busy past its timeout) goes diskcache's way, with its semantics.
    The writes rate limiting makes (incr, and add of a new key) queue on acme.embedded.write_lock
    instead of in SQLite's millisecond sleeps.

    Its directory is made private to this user before diskcache opens it (acme/embedded/cache_dir.py).
    """

    def __init__(self, directory, params):
        make_private_directory(directory)
        super().__init__(directory, params)
        self._write_lock = WriteLock(os.path.join(self.directory, "write-lock"), params.get("DATABASE_TIMEOUT", 1.0))
        self._seen_until = {}  # key (as made) -> when the value this process saw it hold expires
        # An eviction policy that notes reads (access time or count) needs diskcache's incr() to note them.
        self._counts_in_place = RETURNING_SUPPORTED and EVICTION_POLICY[self._cache.eviction_policy]["get"] is None

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
            counted = self._count_in_place(self.make_key(key, version=version), delta)
            if counted is not None:
                return counted
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

    def _count_in_place(self, made_key, delta):
        """The counter's new value, or None when it is not there to count in place."""
        if not self._counts_in_place or type(delta) is not int:
            return None
        fanout = self._cache
        shard = fanout._shards[fanout._hash(made_key) % fanout._count]
        now = time.time()
        try:
            rows = shard._sql(COUNT_IN_PLACE, (delta, now, made_key, now)).fetchall()
        except sqlite3.OperationalError as error:
            if str(error) != "database is locked":
                raise
            return None  # nothing written; diskcache's way waits for the lock
        return rows[0][0] if rows else None

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
