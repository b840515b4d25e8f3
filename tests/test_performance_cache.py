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
