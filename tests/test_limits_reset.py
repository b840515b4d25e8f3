"""X-RateLimit-Reset and Retry-After read (in process), across a window's end.

X-RateLimit-Reset is the Unix time, in seconds, at which the counting window resets (the
protocol's interaction API); Retry-After stays HTTP's delta-seconds. django-ratelimit's windows
are fixed 60-second windows offset per key. Its clock is frozen (the site answers in this
process), so the test sets the time to the window's last second and then to its end instead of
sleeping there; tests/test_conformance.py::test_the_reset_time_is_on_the_real_clock checks
Reset against the real clock.
"""
from types import SimpleNamespace

import pytest
from django_ratelimit import core as ratelimit_core

from agents_protocol.models import RateLimitConfig
from tests.api_client import API, IN_PROCESS_URL
from tests.bursts import assert_reset_matches_retry_after

LIMIT = 2
ADDRESS = "198.51.100.7"


@pytest.fixture
def clock(monkeypatch):
    """django-ratelimit's clock (the one behind its windows, X-RateLimit-Reset and Retry-After)."""
    clock = SimpleNamespace(now=1_800_000_000.0)
    monkeypatch.setattr(ratelimit_core, "time", SimpleNamespace(time=lambda: clock.now))
    return clock


@pytest.fixture
def search(http, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "TRUSTED_PROXY_COUNT": 1}
    config = RateLimitConfig.load()
    config.requests_per_minute = LIMIT
    config.save()

    def call():
        return http.get(f"{IN_PROCESS_URL}{API}/search", params={"q": "mug"},
                        headers={"X-Forwarded-For": ADDRESS}, timeout=10)

    return call


def test_reset_is_the_unix_time_the_window_resets_and_retry_after_the_seconds_until_then(search, clock):
    first, second, refused = search(), search(), search()

    assert [first.status_code, second.status_code, refused.status_code] == [200, 200, 429]
    assert [r.headers["X-RateLimit-Remaining"] for r in (first, second, refused)] == ["1", "0", "0"]
    reset = int(first.headers["X-RateLimit-Reset"])
    assert 0 < reset - clock.now <= 60  # a Unix time at most a window ahead
    assert second.headers["X-RateLimit-Reset"] == refused.headers["X-RateLimit-Reset"] == str(reset)
    retry_after = int(refused.headers["Retry-After"])
    assert retry_after == reset - clock.now
    assert_reset_matches_retry_after(refused, clock.now)  # Reset = the second answered in + Retry-After
    assert refused.json()["error"].endswith(f"Retry in {retry_after} seconds.")

    clock.now = reset - 1 + 0.9  # late in the window's last second: still refused
    last_second = search()
    assert last_second.status_code == 429
    assert (last_second.headers["Retry-After"], last_second.headers["X-RateLimit-Reset"]) == ("1", str(reset))

    clock.now = reset  # the window's end
    after = search()
    assert after.status_code == 200
    assert after.headers["X-RateLimit-Remaining"] == str(LIMIT - 1)
    assert int(after.headers["X-RateLimit-Reset"]) == reset + 60  # the next window, 60 seconds long
