"""Parallel bursts against the API's rate limit, kept inside one counting window.

django-ratelimit counts in fixed 60-second windows, each key's offset by a hash of the key,
so a burst that straddled a window's end would meet two counters. `fresh_window` makes one
counted call and reads X-RateLimit-Reset (the Unix time the window resets); when the window
ends within MARGIN_SECONDS it waits for the next window and calls again. A burst of a few dozen local calls takes well
under a second, well inside the margin; a wider margin would make the tests wait more often and longer.
"""
import time
from concurrent.futures import ThreadPoolExecutor

MARGIN_SECONDS = 4


def fresh_window(call):
    """Make a counted call well inside a window; returns its X-RateLimit-Remaining."""
    response = call()
    seconds_left = int(response.headers["X-RateLimit-Reset"]) - time.time()
    assert seconds_left <= 61, response.headers  # a Unix time within the window, not a delay
    if seconds_left < MARGIN_SECONDS:
        time.sleep(max(0.0, seconds_left) + 1)
        response = call()
    return int(response.headers["X-RateLimit-Remaining"])


def burst(calls):
    """Start every call at once (a thread each); returns the responses in call order."""
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(lambda call: call(), calls))


def assert_exact(responses, allowed):
    """`allowed` calls answered (each with a different Remaining), every other one refused with 429."""
    answered = [r for r in responses if r.status_code != 429]
    refused = [r for r in responses if r.status_code == 429]
    assert [r.status_code for r in answered] == [200] * allowed
    assert sorted(int(r.headers["X-RateLimit-Remaining"]) for r in answered) == list(range(allowed))
    assert len(refused) == len(responses) - allowed
    checked_at = time.time()
    for response in refused:
        assert response.json()["code"] == "rate_limited"
        assert int(response.headers["Retry-After"]) >= 1
        assert_reset_matches_retry_after(response, checked_at)
        assert response.headers["X-RateLimit-Remaining"] == "0"
    # One window: every answer names the same reset time.
    assert len({r.headers["X-RateLimit-Reset"] for r in responses}) == 1


def assert_reset_matches_retry_after(response, received_at):
    """X-RateLimit-Reset is the Unix time the window resets and Retry-After the seconds until
    then: Reset - Retry-After is the second the server answered in, at or just before `received_at`
    (a time.time() read after the response arrived)."""
    answered_in = int(response.headers["X-RateLimit-Reset"]) - int(response.headers["Retry-After"])
    assert answered_in <= received_at < answered_in + 5, (response.headers, received_at)
