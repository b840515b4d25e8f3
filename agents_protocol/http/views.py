"""One view serves every configured capability and the session endpoints.

Request → route (configured path and method) → session → rate limit → parameters →
Idempotency-Key (POST; idempotency.py) → handler → provider → envelope. Every answer,
errors included, is the JSON envelope with a stable `code`, CORS headers and an
`X-Request-ID`; every counted call carries the X-RateLimit-* headers (limits.py).

A plain Django view on purpose: no parser, negotiation, authentication or throttle class
of a framework would do anything here, and the call path is the hottest of the site
(docs/performance.md).
"""
import logging
import uuid
from dataclasses import dataclass, field

from django.core.exceptions import SuspiciousOperation
from django.db import InterfaceError, OperationalError

from agents_protocol.audit.chain import SESSION_CREATE, PendingEvent, record_event
from agents_protocol.core.config import current_config
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.formats import iso_utc
from agents_protocol.core.invocation import run_handler
from agents_protocol.core.schema import validate_params
from agents_protocol.core.session_params import (
    SESSION_CREATE_PARAMS,
    check_agent_lengths,
)
from agents_protocol.http import idempotency, limits, routing
from agents_protocol.http.audit_access import artifact_for
from agents_protocol.http.body import raw_params, read_body
from agents_protocol.http.client import client_address, token_from_headers
from agents_protocol.http.cors import allow_any_origin, preflight_response
from agents_protocol.http.documents import request_origin
from agents_protocol.http.envelope import Envelope, failure, success
from agents_protocol.http.invocation import session_for
from agents_protocol.http.sessions import authenticate, create_session, end_session

logger = logging.getLogger("agents_protocol.api")

ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


def agent_api_view(request):
    """The answer to one agent API request, whatever its method (OPTIONS is the CORS preflight)."""
    if request.method == "OPTIONS":
        return preflight(request)
    return AgentApiCall(request).answer()


def preflight(request):
    methods = sorted({route.method for route in routing.route_table(current_config())
                      if route.pattern.fullmatch(request.path)}) or ALL_METHODS
    return preflight_response(methods + ["OPTIONS"])


class AgentApiCall:
    """One call through the pipeline; `answer()` returns its HTTP response."""

    def __init__(self, request):
        self.request = request
        self.request_id = uuid.uuid4().hex
        self.audited_call = None
        self.idempotency_claim = None

    def answer(self):
        try:
            envelope = self.counted_envelope()
            # Encoding inside the handling: data a handler returns that JSON cannot carry
            # becomes the 500 envelope, never an HTML error page.
            response = envelope.response()
        except Exception as error:  # every failure becomes an envelope
            envelope = self.envelope_for(error)
            response = envelope.response()
        return self.finalize(envelope, response)

    def counted_envelope(self):
        try:
            return self.serve(self.request)
        except (CapabilityError, routing.RouteNotFound, routing.MethodNotAllowed):
            limits.enforce(self.request)  # refused before being counted (404, 405, 413, 401): the address pays
            raise

    def serve(self, request):
        config = current_config()
        match = routing.resolve(config, request.path, request.method)
        if match.route.capability is None:  # session and audit endpoints count per address
            limits.enforce(request, rate_limit=config.rate_limit)
        body = read_body(request)
        origin = request_origin(request)
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
        pending = self.audited_call.prepare(request)
        data = run_handler(config, capability, params, session, origin,
                           append_audit_event=pending.append if pending else None)
        self.audited_call.handled = True
        return success(data)

    def replay_or_claim(self, request, session, body_values):
        """For a POST with an Idempotency-Key: the stored answer, or None once the key is claimed."""
        key = idempotency.key_from(request) if request.method == "POST" else None
        if key is None:
            return None
        scope = idempotency.scope_for(session, client_address(request))
        outcome = idempotency.begin(scope, key, idempotency.fingerprint(request.method, request.path, body_values))
        if isinstance(outcome, idempotency.Replay):
            return Envelope(outcome.body, outcome.status, {"Idempotent-Replayed": "true"})
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

    def envelope_for(self, exc):
        """The error envelope for what the call raised."""
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

    def finalize(self, envelope, response):
        self.record(envelope)
        self.keep_for_replay(envelope)
        for name, value in limits.response_headers(self.request).items():
            response[name] = value
        response["X-Request-ID"] = self.request_id
        response["Cache-Control"] = "no-store"
        return allow_any_origin(response)

    def record(self, envelope):
        """Append this call to its session's audit chain, refused and failed calls included.

        A handler that recorded its change (CallContext.record_change) appended the event
        already, in the transaction of the change: kept if the handler then returned, or if
        that transaction committed before the handler failed. Otherwise the event made before
        the call is appended here when the call succeeded, or an event of the failure.
        """
        call = self.audited_call
        if call is None or call.session is None or call.recorded_by_handler:
            return
        policy_result = "replayed" if call.replayed else f"refused:{envelope.code}" if envelope.code else "allowed"
        try:
            if call.pending and not call.pending.appended and (envelope.status, policy_result) == (200, "allowed"):
                call.pending.append()
            else:
                record_event(call.session, capability=call.capability, method=self.request.method,
                             path=self.request.path, params=call.params, response_status=envelope.status,
                             policy_result=policy_result)
        except Exception:
            # The call has already happened; losing its record is logged, never hidden behind a 500.
            logger.exception("Could not record the audit event (request id %s)", self.request_id)

    def keep_for_replay(self, envelope):
        """Store this answer under the Idempotency-Key it claimed (or release the key)."""
        if self.idempotency_claim is None:
            return
        try:
            idempotency.finish(self.idempotency_claim, envelope.status, envelope.body)
        except Exception:
            # The answer is on its way; the key stays in flight until IN_FLIGHT_LEASE, then runs again.
            logger.exception("Could not store the answer for its Idempotency-Key (request id %s)", self.request_id)


@dataclass
class AuditedCall:
    session: object
    capability: str
    params: dict = field(default_factory=dict)
    replayed: bool = False
    pending: PendingEvent | None = None
    handled: bool = False  # the handler returned

    @property
    def recorded_by_handler(self):
        return self.pending is not None and self.pending.appended and (self.handled or self.pending.settled)

    def prepare(self, request):
        """The event of this call succeeding, made before the handler runs (None without a session)."""
        if self.session is not None:
            self.pending = PendingEvent(self.session, capability=self.capability, method=request.method,
                                        path=request.path, params=self.params, response_status=200,
                                        policy_result="allowed")
        return self.pending

