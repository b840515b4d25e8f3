"""CORS for what agents read and call: any origin, no cookies involved (bearer tokens only)."""
from django.http import HttpResponse

from agents_protocol.core.codec import JSON_CONTENT_TYPE

# What the transports read (User-Agent: the interaction API recommends it; A2A-Version: A2A
# clients must send it; MCP's session and revision headers), none of them CORS-safelisted.
ALLOWED_HEADERS = (
    "Authorization, Content-Type, X-Session-Token, X-Agent-Session, Idempotency-Key, If-None-Match, X-Request-ID, "
    "User-Agent, A2A-Version, A2A-Extensions, Mcp-Session-Id, MCP-Protocol-Version"
)
EXPOSED_HEADERS = (
    "Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-ID, "
    "Idempotent-Replayed, ETag, Allow, WWW-Authenticate, Link, Mcp-Session-Id"
)
PREFLIGHT_MAX_AGE = "86400"


def allow_any_origin(response):
    response["Access-Control-Allow-Origin"] = "*"
    response["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
    return response


def preflight_response(methods):
    # Bodiless, but the protocol says every API answer is JSON in UTF-8, not Django's text/html default.
    response = HttpResponse(status=204, content_type=JSON_CONTENT_TYPE)
    response["Access-Control-Allow-Methods"] = ", ".join(methods)
    response["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
    response["Access-Control-Max-Age"] = PREFLIGHT_MAX_AGE
    return allow_any_origin(response)
