"""The embedded cache (acme.embedded.cache.PersistentDiskCache) stays connected from one request to the next
and answers django-ratelimit's add() of a counter it has seen without reading."""
import time

import pytest
from django.core.cache import caches

from acme.embedded.cache import PersistentDiskCache

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


def all_statements(cache):
    statements = []
    for shard in cache._cache._shards:
        shard._con.set_trace_callback(statements.append)
    return statements


def stop_tracing(cache):
    for shard in cache._cache._shards:
        shard._con.set_trace_callback(None)


def test_add_of_a_key_this_process_saw_present_reads_nothing():
    cache = caches["default"]
    cache.set("seen", 1, timeout=60)
    assert cache.add("seen", 2, timeout=60) is False  # read once, remembered until it expires
    statements = all_statements(cache)
    try:
        assert cache.add("seen", 2, timeout=60) is False
    finally:
        stop_tracing(cache)
    assert statements == []


def test_a_key_gone_before_its_expiry_is_counted_again_from_the_start():
    this_process = caches["default"]
    other_process = PersistentDiskCache(this_process.directory, {})
    this_process.set("counter", 5, timeout=60)
    assert this_process.add("counter", 1, timeout=60) is False
    other_process.clear()
    assert this_process.add("counter", 1, timeout=60) is False  # from memory
    assert this_process.incr("counter") == 1
    assert other_process.incr("counter") == 2
    value, expires = other_process.get("counter", expire_time=True)
    assert value == 2 and 50 < expires - time.time() <= 60  # the expiry this process saw


def test_clear_forgets_what_this_process_saw():
    cache = caches["default"]
    cache.set("counter", 5, timeout=60)
    assert cache.add("counter", 1, timeout=60) is False
    cache.clear()
    assert cache.add("counter", 1, timeout=60) is True and cache.get("counter") == 1


def test_decr_counts_down_through_incr():
    cache = caches["default"]
    cache.set("counter", 5, timeout=60)
    assert cache.decr("counter", 2) == 3


def test_incr_of_a_key_never_seen_is_still_an_error():
    with pytest.raises(ValueError):
        caches["default"].incr("never-stored")
