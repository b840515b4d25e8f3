"""Catalog reads kept in each worker for as long as the catalog is exactly as it was.

Agents repeat their reads: the same search, the same browse page, the same product. Ranking a
search's matches costs milliseconds on a large catalog (docs/performance.md), while finding out
whether anything in the catalog changed costs one indexed read: the version token that database
triggers replace with every product or category change (migration 0003; on PostgreSQL before
the statement's rows, so that every writer locks the version row first: 0008). Each call reads
the token first, then answers from this worker's entries if they were made under the same
token, or reads the database and keeps the answer. Reading the token first makes a change
committed during the read harmless: its answer is kept under the token from before, which no
later call will find again.

Stock and price changes replace the token too, so a cached answer is never staler than an
uncached one. Entries are per process, evicted least recently used first (those of an old
token included), holding at most settings.CATALOG_READ_CACHE_SIZE products between them (a
page of 20 counts 20; about 1.3 KB a product); 0 turns the cache off. Cached answers are shared
between calls: callers must not modify them.
"""
import threading
from collections import OrderedDict
from functools import wraps

from django.conf import settings
from django.db import connection

VERSION_STATEMENT = "SELECT token FROM catalog_version"


def catalog_version():
    """The catalog's version token: it changes in the transaction of any catalog change."""
    with connection.cursor() as cursor:
        cursor.execute(VERSION_STATEMENT)
        return cursor.fetchone()[0]


class ReadCache:
    """Answers by key, each kept with the version token it was read under and its weight."""

    def __init__(self):
        self.entries = OrderedDict()  # key: (version, answer, weight), least recently used first
        self.weight = 0
        self.lock = threading.Lock()  # threaded servers share one cache per process

    def get(self, key, read, weigh):
        capacity = settings.CATALOG_READ_CACHE_SIZE
        if capacity <= 0:
            return read()
        version = catalog_version()
        with self.lock:
            entry = self.entries.get(key)
            if entry is not None and entry[0] == version:
                self.entries.move_to_end(key)
                return entry[1]
        answer = read()
        with self.lock:
            self._put(key, (version, answer, weigh(answer)), capacity)
        return answer

    def _put(self, key, entry, capacity):
        replaced = self.entries.pop(key, None)
        if replaced is not None:
            self.weight -= replaced[2]
        self.entries[key] = entry
        self.weight += entry[2]
        while self.weight > capacity and self.entries:
            _, (_, _, weight) = self.entries.popitem(last=False)
            self.weight -= weight


_cache = ReadCache()


def one(answer):
    return 1


def page_length(answer):
    """A (products, total) page weighs one per product it holds, at least one."""
    return max(1, len(answer[0]))


def cached(weigh=one):
    """Decorator: the read answered from the worker's cache, weighing `weigh(answer)` products;
    `read.uncached` always asks the database."""

    def decorate(read):
        @wraps(read)
        def cached_read(*args, **kwargs):
            key = (read.__qualname__, args, tuple(sorted(kwargs.items())))
            return _cache.get(key, lambda: read(*args, **kwargs), weigh)

        cached_read.uncached = read
        return cached_read

    return decorate
