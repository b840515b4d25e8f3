"""Answer the discovery documents and the agent API before the rest of the middleware stack.

Endpoints are data (admin can move them under /.well-known/), so they cannot live in a
static URLconf.
This middleware sits early in the stack: agent calls and the well-known documents skip
sessions, CSRF, auth and messages, which they do not use. It reads the configuration
once and pins it for the whole request (config.pinned_config). Before that, first of all,
it refuses a URL or header block past the app's own limits (request_size.py: 414, 431).
"""
from functools import cache

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.db import DatabaseError
from django.http import HttpResponse
from django.utils.module_loading import import_string

from agents_protocol.core import codec
from agents_protocol.core.config import current_config, pinned_config
from agents_protocol.core.errors import CapabilityError, envelope_of
from agents_protocol.core.models import MCP_ENDPOINTS
from agents_protocol.documents import interop
from agents_protocol.http.cors import allow_any_origin
from agents_protocol.http.documents import document_view
from agents_protocol.http.exceptions import database_unavailable, refusal_for
from agents_protocol.http.request_ids import new_request_id
from agents_protocol.http.request_size import oversized
from agents_protocol.http.routing import AGENTS_NAMESPACE, WELL_KNOWN, is_api_path
from agents_protocol.http.views import agent_api_view

MCP_VIEW = "agents_protocol.transports.mcp.endpoint"
# While the configuration cannot be read, the JSON-RPC transports answer with their protocol's error.
OUTAGE_ANSWERS = {
    **{endpoint: "agents_protocol.transports.mcp.unavailable" for endpoint in MCP_ENDPOINTS},
    interop.A2A_RPC_PATH: "agents_protocol.transports.a2a.unavailable",
}

# The same views agents_protocol.urls names (reverse() and check E006 use those routes).
DOCUMENT_VIEWS = {
    interop.AGENTS_JSON_PATH: document_view("agents.json"),
    interop.AGENTS_TXT_PATH: document_view("agents.txt"),
    interop.LLMS_TXT_PATH: document_view("llms.txt"),
    interop.PACTSPEC_PATH: document_view("pactspec.json"),
    interop.AGENT_CARD_PATH: document_view("agent-card.json"),
    interop.OPENAPI_PATH: document_view("openapi.json"),
}


class AgentsApiMiddleware:
    """Serves the documents and the agent API; any other request passes through untouched,
    without a look at the configuration (endpoints are all under /.well-known/, models.py, and
    the MCP server at the one of MCP_ENDPOINTS the configuration names)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        document = DOCUMENT_VIEWS.get(request.path_info)
        mcp = request.path in MCP_ENDPOINTS
        if document is None and not mcp and not request.path.startswith(WELL_KNOWN):
            return self.get_response(request)
        if settings.SECURE_SSL_REDIRECT and not request.is_secure():
            return https_redirect(request)
        refusal = oversized(request)
        if refusal is not None:
            return envelope_response(refusal)
        try:
            config = current_config()
        except DatabaseError:
            if request.path in OUTAGE_ANSWERS:
                return finished(import_string(OUTAGE_ANSWERS[request.path])(request))
            if document is None and not mcp and not request.path.startswith(AGENTS_NAMESPACE):
                raise
            return backend_unavailable()
        with pinned_config(config):
            if document is not None:
                return with_content_length(document(request))
            if mcp:
                if not serves_mcp_at(config, request.path):
                    return self.get_response(request)  # a page of the shop's own, if its URLconf has one
                return self.mcp_response(request)
            if not is_api_path(config, request.path):
                # The namespace's other paths (A2A, PactSpec …) go through the URLconf, whose
                # middleware would answer a foreign Host with Django's HTML page.
                refusal = unknown_host(request)
                return envelope_response(refusal) if refusal is not None else self.get_response(request)
            return with_content_length(agent_api_view(request))

    def mcp_response(self, request):
        """The MCP server's answer, called here like the agent API, without the rest of the
        middleware stack: ahead of the URLconf, so a page of the shop's own at the same path
        does not hide the server staff configured there."""
        return with_content_length(mcp_view()(request))


@cache
def mcp_view():
    """The MCP transport's view, loaded by name: transports sit above this layer."""
    return import_string(MCP_VIEW)


def serves_mcp_at(config, path):
    return config.mcp.enabled and path == config.mcp.endpoint


def https_redirect(request):
    """308 to the same URL over HTTPS, in the envelope. Django's SecurityMiddleware answers 301,
    after which HTTP clients send a POST again as a GET, without its body; 308 keeps the method and
    body (RFC 9110). A site exempts the agents' paths from SECURE_REDIRECT_EXEMPT for this to answer."""
    refusal = unknown_host(request)
    if refusal is not None:
        return envelope_response(refusal)
    host = settings.SECURE_SSL_HOST or request.get_host()
    location = f"https://{host}{request.get_full_path()}"
    return envelope_response(CapabilityError(
        308, "https_required", f"This site answers agents over HTTPS only: send the same request to {location}",
        headers={"Location": location}))


def unknown_host(request):
    """The envelope's 400 for a Host outside ALLOWED_HOSTS (Django's own answer is an HTML page), or None."""
    try:
        request.get_host()
    except DisallowedHost as error:
        return refusal_for(error)
    return None


def with_content_length(response):
    """What CommonMiddleware would add, which these answers skip (none on a 204 or a 304, which
    may not carry one that differs from the full answer's)."""
    if response.status_code not in (204, 304):
        response["Content-Length"] = str(len(response.content))
    return response


def backend_unavailable():
    return envelope_response(database_unavailable())


def envelope_response(refusal):
    """The middleware's own refusal, answered before any view runs: the envelope, its status and
    headers, never cached, readable from any origin."""
    response = HttpResponse(codec.encode(envelope_of(refusal)), status=refusal.status,
                            content_type=codec.JSON_CONTENT_TYPE)
    for name, value in refusal.headers.items():
        response[name] = value
    return finished(response)


def finished(response):
    """The middleware's own answer as the pipeline's are: never cached, readable from any origin."""
    response["Cache-Control"] = "no-store"
    response["X-Request-ID"] = new_request_id()  # as the pipeline's answers carry one
    return allow_any_origin(with_content_length(response))
