"""Advertise agents.json on every response of the site with a `Link` header (RFC 8288).

The protocol's interaction API lists `Link: </.well-known/agents.json>; rel="agents"` as
"present on every response for discovery": pages, API answers, documents, errors, redirects,
static files, health checks. Put this middleware first in MIDDLEWARE, so it wraps the whole
stack and also sees the answers other middleware give without going further (the agent API's,
WhiteNoise's static files, a health check's, SecurityMiddleware's HTTPS redirect), and the
error pages Django makes of exceptions. It reads nothing (no query, no configuration) and adds
the link once: a response that already carries a `rel="agents"` link keeps its own.
"""
import re

from agents_protocol.documents.interop import AGENTS_JSON_PATH

AGENTS_LINK = f'<{AGENTS_JSON_PATH}>; rel="agents"; type="application/json"'
# A link parameter rel="agents", rel=agents, or "agents" among several types: rel="agents alternate".
AGENTS_REL = re.compile(r''';\s*rel\s*=\s*(?:"[^"]*(?<![\w.-])agents(?![\w.-])[^"]*"|agents(?![\w.-]))''',
                        re.IGNORECASE)


def has_agents_link(link_header):
    """True when the `Link` header value already has a link whose relation types include `agents`."""
    return AGENTS_REL.search(link_header) is not None


def add_agents_link(response):
    """`response` with the agents.json link added to its `Link` header, unless one is there."""
    existing = response.get("Link")
    if not existing:
        response["Link"] = AGENTS_LINK
    elif not has_agents_link(existing):
        response["Link"] = f"{existing}, {AGENTS_LINK}"
    return response


class AgentsDiscoveryLinkMiddleware:
    """Adds `Link: </.well-known/agents.json>; rel="agents"` to every response, once. First in MIDDLEWARE."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return add_agents_link(self.get_response(request))
