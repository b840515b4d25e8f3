"""The rate limits as DRF throttles: django-ratelimit's counts (limits.py), X-RateLimit-* headers."""
from rest_framework.throttling import BaseThrottle

from agents_protocol.http import limits


class AgentRateThrottle(BaseThrottle):
    """`requests_per_minute` of the configuration: per session when the view counts per session
    and the call has one, else per client address. The exception handler writes the 429."""

    usage = None

    def allow_request(self, request, view):
        session = request.auth if getattr(view, "counts_per_session", True) else None
        config = getattr(view, "config", None)  # AgentView keeps the snapshot; a shop's own DRF view has none
        self.usage = limits.count(request, session, config.rate_limit if config else None)
        return self.usage is None or not self.usage.exceeded

    def wait(self):
        return self.usage.retry_after if self.usage else None


class CapabilityRateThrottle(BaseThrottle):
    """A capability's own `calls_per_hour` (admin), on top of the site's limit, per client address."""

    usage = None

    def allow_request(self, request, view):
        self.usage = limits.count_capability(request, getattr(view, "capability", None))
        return self.usage is None or not self.usage.exceeded

    def wait(self):
        return self.usage.retry_after if self.usage else None
