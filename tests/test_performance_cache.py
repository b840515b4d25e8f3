"""The embedded cache (acme.embedded.cache.PersistentDiskCache) stays connected from one request to the next,
answers django-ratelimit's add() of a counter it has seen without reading, and counts a present counter
in one statement."""
import secrets
import subprocess
import sys
import time

import pytest
from django.core.cache import caches
from django.test import RequestFactory
from django_ratelimit.core import get_usage

from acme.embedded.cache import PersistentDiskCache

pytestmark = pytest.mark.django_db

SEARCH = "/.well-known/agents/api/search?q=mug"


def shard_connections():
    return [getattr(shard._local, "con", None) for shard in caches["default"]._cache._shards]


def test_the_cache_stays_open_from_one_request_to_the_next(client):
    caches["default"].set("counter", 1, timeout=60)
    opened = shard_connections()
    assert client.get(SEARCH).status_code == 200  # Django closes every cache when a request ends
    caches["default"].incr("counter")
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


def shard_of(cache, key):
    fanout = cache._cache
    return fanout._shards[fanout._hash(cache.make_key(key)) % fanout._count]


def statements_of(cache, key, action):
    """The SQL statements `action` runs on the shard holding `key`, and what it returned."""
    statements = []
    shard = shard_of(cache, key)
    shard._con.set_trace_callback(statements.append)
    try:
        result = action()
    finally:
        shard._con.set_trace_callback(None)
    return statements, result


def test_incr_of_a_present_counter_is_one_statement_without_a_transaction():
    cache = caches["default"]
    cache.set("counter", 5, timeout=60)
    statements, counted = statements_of(cache, "counter", lambda: cache.incr("counter", 3))
    assert counted == 8
    assert statements and all(s.startswith("UPDATE Cache SET value = value + 3,") for s in statements)
    value, expires = cache.get("counter", expire_time=True)  # read back by diskcache itself
    assert value == 8 and 50 < expires - time.time() <= 60


def test_a_counter_made_by_django_ratelimits_add_counts_on_in_place():
    request = RequestFactory().get("/")
    usage = [get_usage(request, group="g", key=lambda group, request: "k", rate=(5, 60), increment=True)
             for _ in range(7)]
    assert [u["count"] for u in usage] == [1, 2, 3, 4, 5, 6, 7]
    assert [u["should_limit"] for u in usage] == [False] * 5 + [True] * 2
    assert get_usage(request, group="g", key=lambda group, request: "k", rate=(5, 60))["count"] == 7


def test_incr_of_an_expired_counter_is_missing_and_leaves_it_alone():
    cache = caches["default"]
    cache.set("counter", 7, timeout=0.1)
    time.sleep(0.2)
    with pytest.raises(ValueError):
        cache.incr("counter")
    shard = shard_of(cache, "counter")
    stored = shard._sql("SELECT value FROM Cache WHERE key = ?", (cache.make_key("counter"),)).fetchall()
    assert stored == [(7,)]


def test_incr_of_a_value_that_is_no_integer_fails_as_diskcache_does():
    cache = caches["default"]
    cache.set("word", "abc", timeout=60)  # short text is stored raw, like a counter
    with pytest.raises(TypeError):
        cache.incr("word")
    assert cache.get("word") == "abc"
    cache.set("measure", 1.5, timeout=60)
    assert cache.incr("measure") == 2.5 and cache.get("measure") == 2.5


INCREMENTER = """
import sys
from acme.embedded.cache import PersistentDiskCache
cache = PersistentDiskCache(sys.argv[1], {"DATABASE_TIMEOUT": 1.0})
sys.stdin.readline()  # every process starts together
for _ in range(int(sys.argv[3])):
    cache.incr(sys.argv[2])
"""


def test_processes_incrementing_one_counter_at_once_lose_no_count():
    cache, key = caches["default"], f"shared-{secrets.token_hex(8)}"  # the cache outlives a test
    assert cache.add(key, 1, timeout=300)
    processes = [subprocess.Popen([sys.executable, "-c", INCREMENTER, cache.directory, key, "300"],
                                  stdin=subprocess.PIPE, text=True) for _ in range(4)]
    for process in processes:
        process.stdin.write("go\n")
        process.stdin.flush()
    assert [process.wait(timeout=120) for process in processes] == [0] * 4
    assert cache.get(key) == 1 + 4 * 300
    assert cache.incr(key) == 1 + 4 * 300 + 1
