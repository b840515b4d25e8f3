"""Embedded default (SQLite, counters in shared memory): four gunicorn workers share exact counters.

The site trusts one proxy (TRUSTED_PROXY_COUNT=1) and each test plays that proxy with its own
X-Forwarded-For address, so the tests' budgets never mix.
"""
import pytest
import requests

from tests.api_client import API, SESSION_PATH
from tests.bursts import assert_exact, burst, fresh_window
from tests.servers import migrate, serve_site, set_rate_limit, site_env

LIMIT = 20


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    env = site_env(tmp_path_factory.mktemp("limits-site"), TRUSTED_PROXY_COUNT="1")
    migrate(env)
    site = serve_site(env, workers=4)
    set_rate_limit(site, LIMIT)
    yield site
    site.stop()


def search_call(site, address, token=None):
    headers = {"X-Forwarded-For": address, **({"Authorization": f"Bearer {token}"} if token else {})}
    return lambda: requests.get(f"{site.url}{API}/search", params={"q": "mug"}, headers=headers, timeout=30)


def test_parallel_calls_from_one_address_through_four_workers_refuse_exactly_the_excess(site):
    call = search_call(site, "203.0.113.10")
    remaining = fresh_window(call)
    assert remaining == LIMIT - 1

    assert_exact(burst([call] * (remaining + 7)), allowed=remaining)


def test_a_session_has_its_own_exact_budget_apart_from_its_address(site):
    address = "203.0.113.11"
    created = requests.post(f"{site.url}{SESSION_PATH}", headers={"X-Forwarded-For": address}, timeout=10)
    assert created.status_code == 201
    with_session = search_call(site, address, created.json()["data"]["session_token"])
    remaining = fresh_window(with_session)
    assert remaining == LIMIT - 1

    assert_exact(burst([with_session] * (remaining + 5)), allowed=remaining)
    anonymous = search_call(site, address)()
    assert anonymous.status_code == 200
    assert int(anonymous.headers["X-RateLimit-Remaining"]) >= LIMIT - 2  # only the session create counted


def test_counting_starts_again_when_another_process_clears_the_counters(site):
    """The workers map the counters' file (acme/embedded/counters.py): a clear by another process
    starts every window again from 1, in every worker."""
    call = search_call(site, "203.0.113.12")
    fresh_window(call)
    assert [r.status_code for r in burst([call] * 8)] == [200] * 8
    cleared = site.manage("shell", "-c", "from django.core.cache import caches; caches['ratelimit'].clear()")
    assert cleared.returncode == 0, cleared.stderr

    after = burst([call] * 8)
    assert [r.status_code for r in after] == [200] * 8
    assert sorted(int(r.headers["X-RateLimit-Remaining"]) for r in after) == list(range(LIMIT - 8, LIMIT))
