"""Requests per minute for the agent API, counted by django-ratelimit in the shared cache.

The limit is `requests_per_minute` of the current configuration snapshot, so an admin change
applies from the next call, in every worker (lower for a session that asked the sandbox for it:
core/sandbox.py). A call counts against its session (keyed by the
SHA-256 of its token, as stored; never the raw token) when it carries a valid session token,
otherwise against the client address (an IPv6 address by its /64, which one client usually
holds whole). A token that does not authenticate counts against the address, so inventing
tokens does not buy fresh budgets.

Windows are django-ratelimit's: fixed 60-second windows, each key's offset by a hash of the
key. Every counted answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
`X-RateLimit-Reset`, the Unix time (whole seconds) at which the window resets, as the
protocol's interaction API defines it; past the limit the call is refused with a 429
`rate_limited` envelope and an integer `Retry-After` in seconds (HTTP's delta-seconds, 1 to
60): Reset minus the current second. A cache that cannot count (Redis down) makes the call a
503 `backend_unavailable`. django-ratelimit's `RATELIMIT_ENABLE = False` turns counting off.

A capability may also have a limit of its own, `calls_per_hour` (admin: contact, which sends
the shop an email, has 10 by default), counted in hourly windows per client address, with or
without a session; past it the call is a 429 `rate_limited` with its Retry-After, while the
X-RateLimit-* headers keep saying the site's limit.
"""
import logging
from functools import lru_cache
from typing import NamedTuple

from django.conf import settings
from django.core.cache import caches
from django_ratelimit import core as ratelimit_core
from django_ratelimit.core import get_usage

from agents_protocol.core import sandbox
from agents_protocol.core.config import current_config
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.networks import address_network
from agents_protocol.http.client import client_address

GROUP = "agents_protocol.api"
PERIOD_SECONDS = 60
USAGE_ATTRIBUTE = "agents_rate_limit"  # set on the request once the call is counted
CAPABILITY_PERIOD_SECONDS = 3600  # a capability's own limit counts calls per hour
CAPABILITY_USAGE_ATTRIBUTE = "agents_capability_rate_limit"

logger = logging.getLogger(__name__)


class Usage(NamedTuple):  # a tuple: made on every counted call, at a fraction of a frozen dataclass's cost
    limit: int
    remaining: int
    reset_at: int  # Unix time, in seconds, at which the window resets (X-RateLimit-Reset)
    retry_after: int  # seconds from the call until then (Retry-After), at least 1
    exceeded: bool = False

    @property
    def headers(self):
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_at),
        }


def rate_key(request, session=None):
    if session is not None:
        return f"session:{session.token_hash}"
    return address_key(client_address(request))


@lru_cache(maxsize=4096)
def address_key(address_text):
    """`address:<ip>`, an IPv6 address by its /64 (parsing an address costs more than the count)."""
    return f"address:{address_network(address_text)}"


def count(request, session=None, rate_limit=None):
    """Count this call once (later calls for the same request count nothing): its Usage, or None
    when counting is off. A cache that cannot count is a 503 CapabilityError.

    `request` is the one the call is counted on (DRF's Request in the pipeline's throttles), which
    keeps its Usage; `rate_limit` the snapshot's RateLimitSpec when the caller has it.
    """
    own = vars(request)  # the request's own attributes: on DRF's Request a miss costs two AttributeErrors
    if USAGE_ATTRIBUTE in own:
        return own[USAGE_ATTRIBUTE]
    limit = sandbox.requests_per_minute(session, (rate_limit or current_config().rate_limit).requests_per_minute)
    return count_as(request, rate_key(request, session), limit)


def count_as(request, key, limit):
    """Count this call (once per request) against `key` with a `limit` per minute of its own (a
    principal with limits of its own: a platform): its Usage, or None when counting is off."""
    own = vars(request)
    if USAGE_ATTRIBUTE in own:
        return own[USAGE_ATTRIBUTE]
    setattr(request, USAGE_ATTRIBUTE, None)  # counted, or tried: never twice
    usage = _counted(request, GROUP, key, limit, PERIOD_SECONDS)
    setattr(request, USAGE_ATTRIBUTE, usage)
    return usage


def count_capability(request, capability):
    """Count this call (once per request) against its capability's own `calls_per_hour`, per
    client address (an IPv6 one by its /64), session or not: sessions are free to make, so a
    budget per session would be no limit at all. Its Usage, or None when the capability has no
    such limit or counting is off. A cache that cannot count is a 503."""
    if capability is None or not capability.calls_per_hour:
        return None
    if hasattr(request, CAPABILITY_USAGE_ATTRIBUTE):
        return getattr(request, CAPABILITY_USAGE_ATTRIBUTE)
    setattr(request, CAPABILITY_USAGE_ATTRIBUTE, None)
    usage = _counted(request, f"{GROUP}.{capability.name}", rate_key(request), capability.calls_per_hour,
                     CAPABILITY_PERIOD_SECONDS)
    setattr(request, CAPABILITY_USAGE_ATTRIBUTE, usage)
    return usage


def _counted(request, group, key, limit, period):
    """One more call of `key` in django-ratelimit's current window of `period` seconds: its Usage,
    or None when counting is off (RATELIMIT_ENABLE = False)."""
    try:
        counted = get_usage(request, group=group, key=lambda group, request: key, rate=(limit, period),
                            increment=True)
    except Exception as error:  # cache backends share no error type (redis.ConnectionError, …)
        logger.exception("The rate-limit cache failed")
        raise CapabilityError(503, "backend_unavailable", "The shop's cache is unavailable; retry shortly.",
                              headers={"Retry-After": "5"}) from error
    if counted is None:
        return None
    # time_left is how many whole seconds the window's last second lies ahead; it frees a second
    # later. At least 1: a window that ended while it was counted (-1) frees within the second.
    retry_after = max(1, counted["time_left"] + 1)
    return Usage(limit, max(0, limit - counted["count"]), _current_second() + retry_after, retry_after,
                 counted["should_limit"])


def headroom(request, session, rate_limit):
    """The Usage of `session`'s current window without counting a call (the inspector's view of
    it), or None when counting is off or the cache cannot say."""
    limit = sandbox.requests_per_minute(session, rate_limit.requests_per_minute)
    try:
        counted = get_usage(request, group=GROUP, key=lambda group, request: rate_key(request, session),
                            rate=(limit, PERIOD_SECONDS), increment=False)
    except Exception:  # cache backends share no error type; the page shows no headroom meanwhile
        logger.exception("The rate-limit cache failed")
        return None
    if counted is None:
        return None
    retry_after = max(1, counted["time_left"] + 1)
    used = counted["count"]
    return Usage(limit, max(0, limit - used), _current_second() + retry_after, retry_after, used >= limit)


def _current_second():
    """The current Unix second on django-ratelimit's own clock, the one its windows and time_left
    come from, read just after counting: Reset is never earlier than the window's true end."""
    return int(ratelimit_core.time.time())


def enforce(request, session=None, rate_limit=None):
    """Count this call (once per request) and refuse it with a 429 CapabilityError past the limit."""
    usage = count(request, session, rate_limit)
    if usage is not None and usage.exceeded:
        raise rate_limited(usage)


def rate_limited(usage):
    return CapabilityError(
        429, "rate_limited",
        f"Too many requests: the limit is {usage.limit} per minute. Retry in {usage.retry_after} seconds.",
        headers={**usage.headers, "Retry-After": str(usage.retry_after)},
    )


def capability_rate_limited(capability, usage):
    """The 429 of a capability past its own calls_per_hour (its X-RateLimit-* stay the site's)."""
    return CapabilityError(
        429, "rate_limited",
        f"Too many {capability.name} calls: this site takes at most {usage.limit} an hour from one address. "
        f"Retry in {usage.retry_after} seconds.",
        headers={"Retry-After": str(usage.retry_after)},
    )


def first_refusal_in_session(request, session):
    """Whether this call, refused by a rate limit, is the first that limit refused `session` in
    its current window: the audit trail records that one, and the activity page counts the rest
    (a client past its limit would otherwise write a row per call, as fast as it can send). True
    when no limit refused it, or when the cache cannot say."""
    refusing = [(name, usage) for name, usage in (("site", usage_of(request)),
                                                  ("capability", capability_usage_of(request)))
                if usage is not None and usage.exceeded]
    if not refusing:
        return True
    name, usage = refusing[0]
    key = f"{GROUP}.refusal-recorded:{name}:{session.pk}:{usage.reset_at}"
    try:
        return caches[getattr(settings, "RATELIMIT_USE_CACHE", "default")].add(key, 1, usage.retry_after + 1)
    except Exception:  # cache backends share no error type: record it rather than lose it
        logger.exception("The rate-limit cache failed")
        return True


def capability_usage_of(request):
    """The Usage of the call's capability's own limit, else None."""
    return getattr(request, CAPABILITY_USAGE_ATTRIBUTE, None)


def counted(request):
    """True once this request was counted (or counting was tried)."""
    return hasattr(request, USAGE_ATTRIBUTE)


def usage_of(request):
    """The Usage of a counted call, else None."""
    return getattr(request, USAGE_ATTRIBUTE, None)


def response_headers(request):
    """The X-RateLimit-* headers of a counted call, else none."""
    usage = getattr(request, USAGE_ATTRIBUTE, None)
    return usage.headers if usage else {}
