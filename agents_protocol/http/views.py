"""The agent API: every configured capability and the session and audit endpoints.

Endpoints are data (admin moves them), so one view serves them all and routes each request
by its configured (path, method) (routing.py). Parameters come from the query string for
GET, from a JSON object body for other methods (DELETE also from the query string), and
from the path (`:id`), which wins. Every answer is the envelope `{"ok": true, "data": …}`
or the exception handler's `{"ok": false, "error", "code", "fields"?}`.
"""
from rest_framework.response import Response

from agents_protocol.core.config import current_config
from agents_protocol.core.errors import bad_request, not_found
from agents_protocol.core.formats import iso_utc
from agents_protocol.http import routing
from agents_protocol.http.audit_access import artifact_for
from agents_protocol.http.client import token_from_headers
from agents_protocol.http.pipeline import AgentView
from agents_protocol.http.responses import PipelineResponse
from agents_protocol.http.sessions import end_session, inspect_url

ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


def success(data):
    return {"ok": True, "data": data}


class AgentApiView(AgentView):
    def resolve(self, request, *args, **kwargs):
        http = self.django_request  # Django's request: its attributes read without DRF's proxy
        method = "GET" if http.method == "HEAD" else http.method  # HEAD wherever GET is (RFC 9110)
        self.match = routing.resolve(self.config, http.path, method)
        route = self.match.route
        self.capability = route.capability
        if route.capability is None:  # the session and audit endpoints, counted per address
            self.requires_session, self.counts_per_session = route.name == routing.SESSION_DELETE, False
        else:
            self.requires_session = route.capability.requires_session

    def serve(self, request, *args, **kwargs):
        name = self.match.route.name
        if self.capability is None and name == routing.SESSION_CREATE:
            return self.create_session(request)
        if self.capability is None and name == routing.SESSION_DELETE:
            return self.end_session(request)
        if self.capability is None and name == routing.AUDIT:
            return PipelineResponse(success(artifact_for(self.match.path_params.get("session_id", ""),
                                                         token_from_headers(self.django_request.META))))
        body, query = raw_params(request, self.django_request, self.capability.method)
        outcome = self.call_capability(body, query, self.match.path_params)
        return outcome if isinstance(outcome, Response) else PipelineResponse(success(outcome))

    get = post = put = patch = delete = serve

    def call_name(self):
        match = getattr(self, "match", None)  # None when no route matched (404, 405)
        return match.route.name if match is not None else ""

    def http_method_not_allowed(self, request, *args, **kwargs):
        """A method no view handles (PROPFIND …): the path's own 404, or its 405 naming its methods."""
        self.resolve(request)
        super().http_method_not_allowed(request)

    def preflight_methods(self, request):
        """The methods of the path asked about (as written, or its short `?id=` form); all without a route."""
        for form in routing.route_forms(current_config()):
            methods = form.candidates(request.path)
            if methods:
                return sorted(methods) + ["OPTIONS"]
        return ALL_METHODS + ["OPTIONS"]

    def create_session(self, request):
        body, _ = raw_params(request, self.django_request, "POST")
        session, raw_token = self.open_session(body)
        config, origin = self.config, self.origin
        return PipelineResponse(success({
            "session_token": raw_token,
            "session_id": session.public_id,
            "expires_at": iso_utc(session.expires_at),
            "ttl_seconds": round((session.expires_at - session.created_at).total_seconds()),
            "capabilities": [c.name for c in config.enabled_capabilities if c.requires_session],
            "audit": session.audited,  # session.md: `"audit": true` when audit is on (it was, for this session)
            "inspect_url": inspect_url(origin, session),
        }), status=201)

    def end_session(self, request):
        session = request.auth
        end_session(session, "deleted", method=request.method, path=request.path)
        return PipelineResponse(success({
            "ended": True,
            "session_id": session.public_id,
            "ended_at": iso_utc(session.ended_at),
            # A session made while audit was off has no trail to fetch, whatever the setting now.
            "audit_url": self.audit_url(session) if self.config.audit.enabled and session.audited else None,
        }))


def raw_params(request, http, method):
    """(values from the JSON body, values from the query string), as dicts of name → value: the body
    parsed by DRF's `request`, the query string read from Django's `http`."""
    query = query_values(http)
    if method == "GET":
        return {}, query
    body = request.data
    if not isinstance(body, dict):
        raise bad_request("The request body must be a JSON object of parameters.", "invalid_json")
    return body, query if method == "DELETE" else {}


def query_values(http):
    """The query string of Django's request as a dict of name → its values (most calls send none: no
    QueryDict is made then)."""
    if not http.META.get("QUERY_STRING"):
        return {}
    query = http.GET
    return {key: query.getlist(key) for key in query}


class UnknownEndpoint(AgentView):
    """A path under the agents' namespace that names nothing (a misspelt skill, a trailing slash):
    the envelope's 404 for every method, counted against the client address as the agent API's
    404 is, where the site would answer its HTML page."""

    def http_method_not_allowed(self, request, *args, **kwargs):
        raise not_found("Nothing is served at this path; /.well-known/agents.json lists the agent endpoints.")


agent_api_view = AgentApiView.as_view()
unknown_endpoint = UnknownEndpoint.as_view()
