"""A rate-limit cache that holds with many workers (issue 39, item 5): check E015 refuses Django's
local-memory cache, which each process counts apart, unless the site says it runs one process."""
import pytest
from django.core.checks import run_checks

from agents_protocol.checks import rate_limit_cache_shared

LOCMEM = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}


def ids(errors):
    return [error.id for error in errors]


@pytest.fixture
def locmem_rate_limits(settings):
    settings.CACHES = {**settings.CACHES, "counts": LOCMEM}
    settings.RATELIMIT_USE_CACHE = "counts"


def test_a_local_memory_rate_limit_cache_is_refused(locmem_rate_limits):
    [error] = rate_limit_cache_shared(None)
    assert error.id == "agents_protocol.E015"
    assert "diskcache.DjangoCache" in error.hint and "SINGLE_PROCESS" in error.hint
    assert "agents_protocol.E015" in ids(run_checks())


def test_a_site_that_runs_one_process_may_count_in_local_memory(locmem_rate_limits, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "SINGLE_PROCESS": True}
    assert rate_limit_cache_shared(None) == []


def test_diskcache_counts_across_processes_and_passes(settings, tmp_path):
    settings.CACHES = {**settings.CACHES, "counts": {"BACKEND": "diskcache.DjangoCache", "LOCATION": str(tmp_path)}}
    settings.RATELIMIT_USE_CACHE = "counts"
    assert rate_limit_cache_shared(None) == []
