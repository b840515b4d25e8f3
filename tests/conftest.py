"""Fixtures shared by every test module."""
import shutil

import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import Client

from acme.embedded.cache_dir import SHARED_MEMORY, default_cache_dir
from agents_protocol.activity.recorder import calls
from agents_protocol.testing import install_default_config, reset_config_cache
from tests.api_client import InProcessRequests


@pytest.fixture(scope="session", autouse=True)
def remove_shared_memory_caches(tmp_path_factory):
    """Sites served from temporary data dirs keep their cache in shared memory (acme/embedded/cache_dir.py),
    which outlives pytest's temporary directories: remove those when the session ends."""
    yield
    base = tmp_path_factory.getbasetemp()
    for directory in [base, *(path for path in base.rglob("*") if path.is_dir() and not path.is_symlink())]:
        location = default_cache_dir(directory)
        if location.parent == SHARED_MEMORY:
            shutil.rmtree(location, ignore_errors=True)


def _uses_test_database(item):
    marker = item.get_closest_marker("django_db")
    return marker is not None or {"db", "transactional_db", "live_server"} & set(item.fixturenames)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Under `--dist loadgroup` (make test), a module's tests that use no test database run on one
    xdist worker: they are the ones that start servers of their own (module-scoped gunicorn sites,
    PostgreSQL, Redis), started once per module instead of once per worker that runs any of them.
    Tests that use the test database stay spread one by one, in pytest-django's order (rolled-back
    tests before transactional ones) on each worker."""
    for item in items:
        if not _uses_test_database(item):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


def _is_transactional(request):
    marker = request.node.get_closest_marker("django_db")
    uses_marker = marker is not None and marker.kwargs.get("transaction", False)
    return uses_marker or {"transactional_db", "live_server"} & set(request.fixturenames)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def agents_config(request):
    """Every test starts from the default agents configuration and cold caches.

    Transactional tests (live_server) flush the tables afterwards, removing what the
    data migration wrote, so the default configuration is written again for them.
    """
    reset_config_cache()
    if _is_transactional(request):
        request.getfixturevalue("transactional_db")
        install_default_config()
    yield
    reset_config_cache()


@pytest.fixture(autouse=True)
def no_calls_of_other_tests():
    """The activity page's calls wait in a per-process buffer (agents_protocol/activity/recorder.py):
    a test neither inherits another's nor leaves its own to be written into the next test's database."""
    calls.take()
    yield
    calls.take()


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """Rate-limit counters live in the shared cache (RATELIMIT_USE_CACHE); each test starts with none."""
    caches[settings.RATELIMIT_USE_CACHE].clear()


@pytest.fixture
def site_client(db):
    """Django's test client checking CSRF as a server does, inside the test's rolled-back transaction."""
    return Client(enforce_csrf_checks=True)


@pytest.fixture
def http(site_client):
    """`requests`' functions answered in process by `site_client` (tests/api_client.py, InProcessRequests)."""
    return InProcessRequests(site_client)


@pytest.fixture
def key_file(settings, tmp_path):
    """A signing key of the test's own, generated into its temporary directory (not the environment's
    AUDIT_SIGNING_KEY or DATA_DIR's file); returns the key file's path."""
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "SIGNING_KEY": None,
                                "SIGNING_KEY_FILE": tmp_path / "audit_signing_key"}
    return tmp_path / "audit_signing_key"
