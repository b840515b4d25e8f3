"""Fixtures shared by every test module."""
import compileall
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import Client
from xdist.scheduler import LoadScopeScheduling

from acme.embedded.cache_dir import SHARED_MEMORY, default_cache_dir
from agents_protocol.activity.recorder import calls
from agents_protocol.testing import install_default_config, reset_config_cache
from tests.api_client import InProcessRequests


# The packages every site process and xdist worker of a run imports.
SITE_PACKAGES = ("acme", "agents_protocol", "cart", "catalog", "deploy", "tests")


def pytest_configure(config):
    # Every Django test client loads the middleware anew, and WhiteNoise's scans the static files
    # when it is made: 2,400 scans a run. With autorefresh it finds a file when one is asked for.
    # The sites the tests start as servers keep the shipped settings.
    settings.WHITENOISE_AUTOREFRESH = True
    if not hasattr(config, "workerinput"):
        write_bytecode()


def write_bytecode():
    """SITE_PACKAGES' bytecode, written once before the run starts any process: where
    PYTHONDONTWRITEBYTECODE is set (containers, CI), each of the run's hundreds of site processes would
    otherwise compile every module changed since the last write from source at start-up (about 0.1 s
    of CPU each)."""
    root = Path(__file__).resolve().parent.parent
    for package in SITE_PACKAGES:
        compileall.compile_dir(root / package, quiet=1)


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


# Modules whose module-scoped fixtures start servers (gunicorn sites, PostgreSQL, Redis, nginx) and
# that hold no transactional test: under `make test` each runs on one xdist worker, so its servers
# start once, not once per worker (ServersOnceScheduling).
SERVER_MODULES = {
    "tests/test_acp_server.py", "tests/test_api_request_size.py", "tests/test_discovery_link.py",
    "tests/test_document_replay.py",
    "tests/test_faults_slow_body.py", "tests/test_gunicorn_speedups.py", "tests/test_interop_openapi.py",
    "tests/test_limits_workers.py", "tests/test_package_wheel.py", "tests/test_reliability_concurrency.py",
    "tests/test_scale_out.py", "tests/test_scale_out_proxied.py", "tests/test_search_index.py",
    "tests/test_ucp_conformance.py",
}


class ServersOnceScheduling(LoadScopeScheduling):
    """xdist's `--dist load` test by test, except that a module of SERVER_MODULES goes to one worker
    whole. Each worker keeps pytest-django's order (rolled-back tests before the ones that flush
    the tables): a server module is sent where its first test stands, and holds rolled-back tests
    and tests that use no test database, which may run anywhere. (`--dist loadfile` sends every
    module whole, transactional tests included, and broke that order; `loadgroup`'s xdist_group
    marks are lost on pytest 9, whose nodes keep their id elsewhere.)"""

    def _split_scope(self, nodeid):
        module = nodeid.split("::", 1)[0]
        return module if module in SERVER_MODULES else nodeid


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") == "load":
        return ServersOnceScheduling(config, log)
    return None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """Tests without a test database first, then pytest-django's order (rolled-back tests, then the
    ones that flush the tables). pytest-django puts them last; many start servers and wait on them,
    and at the end of a run they left one xdist worker running them while the other had finished.
    A server module stays free of transactional tests (see SERVER_MODULES)."""
    items.sort(key=_uses_test_database)  # stable: pytest-django's order within each group
    flushing = {item.nodeid.split("::", 1)[0] for item in items if _flushes_tables(item)}
    assert not SERVER_MODULES & flushing, f"transactional tests in SERVER_MODULES: {SERVER_MODULES & flushing}"


def _uses_test_database(item):
    return item.get_closest_marker("django_db") is not None or bool(
        {"db", "transactional_db", "live_server", "django_db_setup"} & set(item.fixturenames))


def _flushes_tables(item):
    marker = item.get_closest_marker("django_db")
    uses_marker = marker is not None and marker.kwargs.get("transaction", False)
    return uses_marker or bool({"transactional_db", "live_server"} & set(item.fixturenames))


def _is_transactional(request):
    return _flushes_tables(request.node)


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
