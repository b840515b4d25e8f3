"""X-RateLimit-Reset and Retry-After read from a live server on the real clock, across a window's end.

X-RateLimit-Reset is the Unix time, in seconds, at which the counting window resets (the
protocol's interaction API); Retry-After stays HTTP's delta-seconds. django-ratelimit's windows
are fixed 60-second windows offset per key, so the test trusts one proxy and picks, among a few
client addresses (keys), one whose window resets within seconds, then calls across its end.
"""
import time

import pytest
import requests

from agents_protocol.models import RateLimitConfig
from tests.api_client import API
from tests.bursts import assert_reset_matches_retry_after

LIMIT = 2
SOON = (3, 12)  # seconds: long enough to use the budget up first, short enough to wait for


@pytest.fixture
def search(live_server, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "TRUSTED_PROXY_COUNT": 1}
    config = RateLimitConfig.load()
    config.requests_per_minute = LIMIT
    config.save()

    def call(address):
        return requests.get(f"{live_server.url}{API}/search", params={"q": "mug"},
                            headers={"X-Forwarded-For": address}, timeout=10)

    return call


def address_whose_window_ends_soon(search):
    """(address, its first answer): a client address whose window resets within SOON seconds."""
    for n in range(1, 200):
        address = f"198.51.100.{n}"
        first = search(address)
        seconds_left = int(first.headers["X-RateLimit-Reset"]) - time.time()
        assert 0 < seconds_left <= 61, first.headers  # a Unix time at most a window ahead
        if SOON[0] <= seconds_left <= SOON[1]:
            return address, first
    pytest.fail("no address of 198.51.100.0/24 has a window ending soon")  # (51/60)^199: never


def test_reset_is_the_unix_time_the_window_resets_and_retry_after_the_seconds_until_then(search):
    address, first = address_whose_window_ends_soon(search)
    second, refused = search(address), search(address)
    received_at = time.time()

    assert [first.status_code, second.status_code, refused.status_code] == [200, 200, 429]
    assert [r.headers["X-RateLimit-Remaining"] for r in (first, second, refused)] == ["1", "0", "0"]
    reset = int(first.headers["X-RateLimit-Reset"])
    assert second.headers["X-RateLimit-Reset"] == refused.headers["X-RateLimit-Reset"] == str(reset)
    retry_after = int(refused.headers["Retry-After"])
    assert 1 <= retry_after <= SOON[1] + 1
    assert_reset_matches_retry_after(refused, received_at)  # Reset = the second answered in + Retry-After
    assert refused.json()["error"].endswith(f"Retry in {retry_after} seconds.")

    time.sleep(max(0.0, reset - 0.8 - time.time()))  # the window's last second: still refused
    last_second = search(address)
    assert last_second.status_code == 429
    assert (last_second.headers["Retry-After"], last_second.headers["X-RateLimit-Reset"]) == ("1", str(reset))

    time.sleep(max(0.0, reset - time.time()) + 0.05)  # across the window's end
    after = search(address)
    assert after.status_code == 200
    assert after.headers["X-RateLimit-Remaining"] == str(LIMIT - 1)
    assert int(after.headers["X-RateLimit-Reset"]) == reset + 60  # the next window, 60 seconds long
