"""The embedded default's shared cache: diskcache, kept open from one request to the next."""
from diskcache import DjangoCache


class PersistentDiskCache(DjangoCache):
    """diskcache's Django backend without the close() Django calls when every request ends.

    For diskcache that close() shuts its SQLite files, so the next API call (the rate limit
    counts in this cache) opened them again and set them up: about 2 ms of every agent call on
    the benchmark machine, more than the call itself (docs/performance.md). The connections are
    per process and per thread, like the database connection Django keeps for CONN_MAX_AGE.
    """

    def close(self, **kwargs):
        pass
