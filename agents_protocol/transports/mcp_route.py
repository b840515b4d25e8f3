"""The MCP server's route (agents_protocol.urls), importing the server on its first request.

transports/mcp.py reads and writes messages with mcp_types, pydantic models of every MCP revision
that take a process about 0.2 s to import: a site process pays that on its first MCP request, not at
start-up.
"""
from django.views.decorators.csrf import csrf_exempt


@csrf_exempt  # as the view it calls is (DRF exempts its views from Django's CSRF check)
def endpoint(request, *args, **kwargs):
    from agents_protocol.transports import mcp

    return mcp.endpoint(request, *args, **kwargs)


def unavailable(request):
    """transports/mcp.py's answer while the database cannot be read (AgentsApiMiddleware's)."""
    from agents_protocol.transports import mcp

    return mcp.unavailable(request)


endpoint.unavailable = unavailable
