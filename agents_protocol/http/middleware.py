"""Answer the discovery documents and the agent API before the rest of the middleware stack.

Endpoints are data (admin can move them under /.well-known/), so they cannot live in a
static URLconf; every other path the app serves is a route of agents_protocol.urls, the one
table. This middleware sits early in the stack: agent calls and the well-known documents skip
sessions, CSRF, auth and messages, which they do not use. The documents and the MCP server are
answered here, by the views that table names for their paths; the table's other routes (A2A,
PactSpec, the inspector) through the site's URLconf, which includes it. It reads the configuration
once and pins it for the whole request (config.pinned_config). Before that, first of all,
it refuses a URL or header block past the app's own limits (request_size.py: 414, 431).
"""
from functools import cache

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.db import DatabaseError
from django.http import HttpResponse
from django.urls import Resolver404, URLPattern, get_resolver, resolve

from agents_protocol.core import codec
from agents_protocol.core.config import current_config, pinned_config
from agents_protocol.core.errors import CapabilityError, envelope_of
from agents_protocol.core.models import MCP_ENDPOINTS
from agents_protocol.http.cors import allow_any_origin
from agents_protocol.http.documents import is_document_view
from agents_protocol.http.exceptions import database_unavailable, refusal_for
from agents_protocol.http.request_ids import new_request_id
from agents_protocol.http.request_size import oversized
from agents_protocol.http.routing import AGENTS_NAMESPACE, WELL_KNOWN, is_api_path
from agents_protocol.http.views import agent_api_view

APP_URLCONF = "agents_protocol.urls"  # by name: its transports sit above this layer


class AgentsApiMiddleware:
    """Serves the documents and the agent API; any other request passes through untouched,
    without a look at the configuration (endpoints are all under /.well-known/, models.py, and
    the MCP server at the one of MCP_ENDPOINTS the configuration names)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        answering = answered_first().get(request.path_info)
        if answering is None and not request.path.startswith(WELL_KNOWN):
            return self.get_response(request)
        if settings.SECURE_SSL_REDIRECT and not request.is_secure():
            return https_redirect(request)
        refusal = oversized(request)
        if refusal is not None:
            return envelope_response(refusal)
        try:
            config = current_config()
        except DatabaseError:
            outage_answer = unavailable_view(request.path_info)
            if outage_answer is not None:
                return finished(outage_answer(request))
            if answering is None and not request.path.startswith(AGENTS_NAMESPACE):
                raise
            return backend_unavailable()
        with pinned_config(config):
            if answering is not None:
                if request.path in MCP_ENDPOINTS and not serves_mcp_at(config, request.path):
                    return self.get_response(request)  # a page of the shop's own, if its URLconf has one
                # The MCP server too: ahead of the URLconf, so a page of the shop's own at the same
                # path does not hide the server staff configured there.
                return with_content_length(answering(request))
            if not is_api_path(config, request.path):
                # The namespace's other paths (A2A, PactSpec …) go through the URLconf, whose
                # middleware would answer a foreign Host with Django's HTML page.
                refusal = unknown_host(request)
                return envelope_response(refusal) if refusal is not None else self.get_response(request)
            return with_content_length(agent_api_view(request))


@cache
def answered_first():
    """{path: view} of the routes of agents_protocol.urls this middleware answers itself: the
    documents and the MCP server, at the fixed paths the table gives them."""
    routes = {}
    for pattern in get_resolver(APP_URLCONF).url_patterns:
        path = f"/{pattern.pattern}"
        if isinstance(pattern, URLPattern) and (is_document_view(pattern.callback) or path in MCP_ENDPOINTS):
            routes[path] = pattern.callback
    return routes


def unavailable_view(path):
    """What the view agents_protocol.urls routes `path` to answers while the database cannot be
    read (the JSON-RPC transports: their protocol's error), or None."""
    try:
        route = resolve(path, APP_URLCONF)
    except Resolver404:
        return None
    return getattr(route.func, "unavailable", None)


@cache
def document_paths():
    """The paths of agents_protocol.urls that serve a discovery document."""
    return frozenset({path for path, view in answered_first().items() if is_document_view(view)})


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
