"""Advertise agents.json on every HTML page with a `Link` header (RFC 8288)."""

AGENTS_LINK = '</.well-known/agents.json>; rel="agents"; type="application/json"'


class AgentsDiscoveryLinkMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.get("Content-Type", "").startswith("text/html"):
            existing = response.get("Link")
            response["Link"] = f"{existing}, {AGENTS_LINK}" if existing else AGENTS_LINK
        return response
