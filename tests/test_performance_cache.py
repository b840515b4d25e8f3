"""The embedded cache (acme.cache.PersistentDiskCache) stays connected from one request to the next."""
import pytest
from django.core.cache import caches

pytestmark = pytest.mark.django_db

SEARCH = "/.well-known/agents/api/search?q=mug"


def shard_connections():
    return [getattr(shard._local, "con", None) for shard in caches["default"]._cache._shards]


def test_api_calls_count_in_the_cache_without_reopening_it(client):
    assert client.get(SEARCH).status_code == 200  # counted in the cache; Django then closes caches
    opened = shard_connections()
    assert client.get(SEARCH).status_code == 200
    assert any(opened) and shard_connections() == opened


def test_add_stores_only_what_is_missing_or_expired(settings):
    cache = caches["default"]
    cache.delete("counter")
    assert cache.add("counter", 1, timeout=60) is True
    assert cache.add("counter", 5, timeout=60) is False
    assert cache.incr("counter") == 2
    cache.set("counter", 7, timeout=-1)  # already expired: add stores again
    assert cache.add("counter", 1, timeout=60) is True and cache.get("counter") == 1


def test_add_of_a_present_key_takes_no_write_lock():
    cache = caches["default"]
    cache.set("present", 1, timeout=60)
    shard = cache._cache._shards[cache._cache._hash(cache.make_key("present")) % len(cache._cache._shards)]
    statements = []
    shard._con.set_trace_callback(statements.append)
    try:
        assert cache.add("present", 2, timeout=60) is False
    finally:
        shard._con.set_trace_callback(None)
    assert statements and not any(s.startswith("BEGIN") for s in statements)
