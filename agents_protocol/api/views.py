"""One DRF view serves every configured capability and the session endpoints.

Request → route (configured path and method) → session → rate limit → parameters →
Idempotency-Key (POST; idempotency.py) → handler → provider → envelope. Every answer,
errors included, is the JSON envelope with a stable `code`, CORS headers and an
`X-Request-ID`; every counted call carries the X-RateLimit-* headers (limits.py).
"""
import logging
import uuid
from dataclasses import dataclass, field

from django.core.exceptions import SuspiciousOperation
from django.db import InterfaceError, OperationalError
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import idempotency
from ..audit.access import artifact_for
from ..audit.chain import SESSION_CREATE, record_event
from ..config import current_config
from ..cors import allow_any_origin, preflight_response
from ..errors import CapabilityError
from ..formats import iso_utc
from ..invocation import run_handler, session_for
from ..sessions import authenticate, create_session, end_session
from . import limits, routing
from .auth import client_address, token_from_headers
from .envelope import EnvelopeRenderer, failure, success
from .params import raw_params, read_body, validate_params
from .session_params import SESSION_CREATE_PARAMS, check_agent_lengths

logger = logging.getLogger("agents_protocol.api")

ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


class AlwaysJson(BaseContentNegotiation):
    """Agents get JSON whatever their Accept header says (no HTML, no 406)."""

    def select_parser(self, request, parsers):
        return None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class AgentApiView(APIView):
    authentication_classes = []
    permission_classes = []
    throttle_classes = []
    parser_classes = []
    renderer_classes = [EnvelopeRenderer]
    content_negotiation_class = AlwaysJson

    @property
    def default_response_headers(self):
        return {}  # DRF would add an Allow listing every method; only a 405 says which are allowed

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.request_id = uuid.uuid4().hex
        self.audited_call = None
        self.idempotency_claim = None

    def options(self, request, *args, **kwargs):
        config = current_config()
        methods = sorted({route.method for route in routing.route_table(config)
                          if route.pattern.fullmatch(request.path)}) or ALL_METHODS
        return preflight_response(methods + ["OPTIONS"])

    def get(self, request, *args, **kwargs):
        try:
            response = self.serve(request)
        except (CapabilityError, routing.RouteNotFound, routing.MethodNotAllowed):
            limits.enforce(request)  # refused before being counted (404, 405, 413, 401): the address pays
            raise
        # Render here, inside DRF's exception handling: data a handler returns that JSON
        # cannot carry becomes the 500 envelope, not an HTML error page after the view.
        response.accepted_renderer = request.accepted_renderer
        response.accepted_media_type = request.accepted_media_type
        response.renderer_context = self.get_renderer_context()
        return response.render()

    post = put = patch = delete = get

    def http_method_not_allowed(self, request, *args, **kwargs):
        """Methods no capability can use (TRACE, PROPFIND …): the same 405 or 404 as any other miss."""
        return self.get(request)

    def serve(self, request):
        config = current_config()
        match = routing.resolve(config, request.path, request.method)
        if match.route.capability is None:  # session and audit endpoints count per address
            limits.enforce(request, rate_limit=config.rate_limit)
        body = read_body(request)
        origin = request.build_absolute_uri("/").rstrip("/")
        if match.route.name == routing.SESSION_CREATE:
            return self.create_session(request, config, body)
        token = token_from_headers(request)
        if match.route.name == routing.SESSION_DELETE:
            return self.end_session(request, config, token, origin)
        if match.route.name == routing.AUDIT:
            return success(artifact_for(match.path_params.get("session_id", ""), token))
        capability = match.route.capability
        session = session_for(config, capability, token)
        self.audited_call = AuditedCall(session, capability.name)
        limits.enforce(request, session, config.rate_limit)
        body_values, query_values = raw_params(request, capability.method, body)
        params = validate_params(capability.params, body_values, query_values, match.path_params)
        self.audited_call.params = params
        replay = self.replay_or_claim(request, session, body_values)
        if replay is not None:
            self.audited_call.replayed = True
            return replay
        return success(run_handler(config, capability, params, session, origin))

    def replay_or_claim(self, request, session, body_values):
        """For a POST with an Idempotency-Key: the stored answer, or None once the key is claimed."""
        key = idempotency.key_from(request) if request.method == "POST" else None
        if key is None:
            return None
        scope = idempotency.scope_for(session, client_address(request))
        outcome = idempotency.begin(scope, key, idempotency.fingerprint(request.method, request.path, body_values))
        if isinstance(outcome, idempotency.Replay):
            return Response(outcome.body, status=outcome.status, headers={"Idempotent-Replayed": "true"})
        self.idempotency_claim = outcome
        return None

    def create_session(self, request, config, body):
        body_values, _ = raw_params(request, "POST", body)
        agent = check_agent_lengths(validate_params(SESSION_CREATE_PARAMS, body_values, {}, {}))
        replay = self.replay_or_claim(request, None, body_values)
        if replay is not None:
            return replay
        session, raw_token = create_session(
            client_address(request), config.session.ttl_seconds, config.rate_limit.max_sessions,
            audited=config.audit.enabled, **agent,
        )
        self.audited_call = AuditedCall(session, SESSION_CREATE, agent)
        data = {
            "session_token": raw_token,
            "session_id": session.public_id,
            "expires_at": iso_utc(session.expires_at),
            "ttl_seconds": config.session.ttl_seconds,
            "capabilities": [c.name for c in config.enabled_capabilities],
        }
        return success(data, status=201)

    def end_session(self, request, config, token, origin):
        session = authenticate(token, config.session.create_endpoint)
        end_session(session, "deleted", method=request.method, path=request.path)
        audit_path = config.audit.endpoint.replace(":session_id", session.public_id)
        return success({
            "ended": True,
            "session_id": session.public_id,
            "ended_at": iso_utc(session.ended_at),
            "audit_url": f"{origin}{audit_path}" if config.audit.enabled else None,
        })

    def handle_exception(self, exc):
        if isinstance(exc, CapabilityError):
            return failure(exc.status, exc.code, exc.message, exc.fields, exc.headers)
        if isinstance(exc, routing.MethodNotAllowed):
            allowed = ", ".join(exc.allowed + ["OPTIONS"])
            return failure(405, "method_not_allowed", f"Use {' or '.join(exc.allowed)} on this endpoint.",
                           headers={"Allow": allowed})
        if isinstance(exc, routing.RouteNotFound):
            return failure(404, "not_found", "No capability is served at this path; see /.well-known/agents.json.")
        if isinstance(exc, SuspiciousOperation):
            # What Django answers 400 for (unknown Host, too many parameters …), logged where Django logs it.
            logging.getLogger(f"django.security.{type(exc).__name__}").error(str(exc))
            return failure(400, "invalid_request",
                           "The request was refused as malformed (an unexpected Host header or too many parameters).")
        if isinstance(exc, (OperationalError, InterfaceError)):
            # The database went away (or is locked past the busy timeout) mid-call: retrying later works.
            logger.exception("The database failed in the agent API (request id %s)", self.request_id)
            return failure(503, "backend_unavailable", "The shop's database is unavailable; retry shortly.",
                           headers={"Retry-After": "5"})
        logger.exception("Unexpected error in the agent API (request id %s)", self.request_id)
        return failure(500, "internal_error",
                       f"Something went wrong on our side; retry with backoff. Request id: {self.request_id}.")

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        self.record(request, response)
        self.keep_for_replay(response)
        for name, value in limits.response_headers(request).items():
            response[name] = value
        response["X-Request-ID"] = getattr(self, "request_id", "")
        response["Cache-Control"] = "no-store"
        return allow_any_origin(response)


    def record(self, request, response):
        """Append this call to its session's audit chain, refused and failed calls included."""
        call = self.audited_call
        if call is None or call.session is None:
            return
        code = response.data.get("code") if isinstance(response.data, dict) else None
        policy_result = "replayed" if call.replayed else f"refused:{code}" if code else "allowed"
        try:
            record_event(call.session, capability=call.capability, method=request.method, path=request.path,
                         params=call.params, response_status=response.status_code, policy_result=policy_result)
        except Exception:
            # The call has already happened; losing its record is logged, never hidden behind a 500.
            logger.exception("Could not record the audit event (request id %s)", self.request_id)

    def keep_for_replay(self, response):
        """Store this answer under the Idempotency-Key it claimed (or release the key)."""
        if self.idempotency_claim is None:
            return
        try:
            idempotency.finish(self.idempotency_claim, response.status_code, response.data)
        except Exception:
            # The answer is on its way; the key stays in flight until IN_FLIGHT_LEASE, then runs again.
            logger.exception("Could not store the answer for its Idempotency-Key (request id %s)", self.request_id)


@dataclass
class AuditedCall:
    session: object
    capability: str
    params: dict = field(default_factory=dict)
    replayed: bool = False


agent_api_view = AgentApiView.as_view()
