"""The embedded cache lives in a private directory of its own per site, in shared memory by
default (acme/embedded/cache_dir.py), and a directory other users could tamper with is refused."""
import os
import stat

import pytest
import requests
from django.core.exceptions import ImproperlyConfigured

from acme.embedded import cache_dir
from acme.embedded.cache_dir import SHARED_MEMORY, default_cache_dir, make_private_directory
from tests.api_client import API
from tests.servers import start_site


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_each_data_dir_has_its_own_directory_in_shared_memory(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    assert default_cache_dir(first).parent == SHARED_MEMORY
    assert default_cache_dir(first) == default_cache_dir(tmp_path / "x" / ".." / "one")
    assert default_cache_dir(first) != default_cache_dir(second)


def test_without_shared_memory_the_cache_stays_in_the_data_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_dir, "SHARED_MEMORY", tmp_path / "no-shm")
    assert default_cache_dir(tmp_path) == tmp_path / "cache"


def test_a_new_directory_is_private(tmp_path):
    make_private_directory(tmp_path / "deep" / "cache")
    assert mode_of(tmp_path / "deep" / "cache") == 0o700


def test_an_existing_private_directory_is_kept(tmp_path):
    (tmp_path / "cache").mkdir(mode=0o755)
    (tmp_path / "cache" / "cache.db").write_bytes(b"counters")
    make_private_directory(tmp_path / "cache")
    assert (tmp_path / "cache" / "cache.db").read_bytes() == b"counters"


@pytest.mark.parametrize("plant", ["writable_by_others", "link", "file", "owned_by_another_user"])
def test_a_directory_others_could_tamper_with_is_refused(tmp_path, monkeypatch, plant):
    path = tmp_path / "cache"
    if plant == "writable_by_others":
        path.mkdir()
        path.chmod(0o777)
    elif plant == "link":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        path.symlink_to(tmp_path / "elsewhere")
    elif plant == "file":
        path.write_text("")
    else:
        path.mkdir(mode=0o700)
        monkeypatch.setattr(cache_dir.os, "geteuid", lambda: os.lstat(path).st_uid + 1)
    with pytest.raises(ImproperlyConfigured, match="must be a directory of user"):
        make_private_directory(path)


def search(site):
    return requests.get(f"{site.url}{API}/search", params={"q": "mug"}, timeout=30)


def test_the_site_counts_requests_in_shared_memory_not_in_its_data_dir(tmp_path):
    site = start_site(tmp_path)
    try:
        answer = search(site)
    finally:
        site.stop()
    assert answer.status_code == 200 and answer.headers["X-RateLimit-Remaining"]
    location = default_cache_dir(tmp_path)
    assert location.parent == SHARED_MEMORY and mode_of(location) == 0o700
    assert list(location.glob("rate-limits.counters.*"))  # settings.CACHES["ratelimit"]
    assert not (tmp_path / "cache").exists()


def test_a_cache_directory_others_can_write_to_stops_commands_and_makes_calls_503_until_fixed(tmp_path):
    site = start_site(tmp_path)  # its workers open the cache at their first call
    location = default_cache_dir(tmp_path)
    location.chmod(0o777)
    try:
        check = site.manage("check")
        refused = search(site)
        health = requests.get(f"{site.url}/healthz", timeout=30)
        location.chmod(0o700)
        served = search(site)
    finally:
        site.stop()
    assert check.returncode != 0 and f"The cache directory {location} must be a directory of user" in check.stderr
    assert refused.status_code == 503
    assert refused.json() == {"ok": False, "code": "backend_unavailable",
                              "error": "The shop's cache is unavailable; retry shortly."}
    assert health.status_code == 503 and health.json()["checks"]["cache"] == "failed: ImproperlyConfigured"
    assert served.status_code == 200
