"""The one pipeline every transport runs (agent API, A2A, PactSpec, MCP): a Django REST framework view.

DRF's own lifecycle is the pipeline, and each step is a DRF class a shop can swap from the
AGENTS_PROTOCOL settings (core/conf.py):

    initial()    the transport finds the call (`resolve`: a configured route, a JSON-RPC
                 message …), guarding the body's declared size (413)
                 → authentication: the agent session of the token headers
                 → permission: a session where the capability requires one (401)
                 → throttle: requests_per_minute per session, else per client address, and
                   the capability's own calls_per_hour per client address (429)
    handler      parameters through the parser and the capability schema (400)
                 → Idempotency-Key (replay, 409, 422) → the capability's handler → the provider,
                 which may append the call's audit event in its own transaction (record_change)
    finalize     the renderer writes the answer (data JSON cannot carry is a 500)
                 → the call's audit event, refusals included → the answer kept for replays
                 → X-RateLimit-*, X-Request-ID, Cache-Control: no-store, CORS
                 → the call, its outcome and duration, for the activity page (activity/)

A call refused before it was counted (404, 405, 413, 401 …) is counted against the client
address, so refusals buy no free budget. A transport is a subclass: it says how it finds the
call (`resolve`) and writes its answers; everything else is here, once.
"""
import logging
import time
from dataclasses import dataclass, field

from django.utils.functional import cached_property
from rest_framework.response import Response
from rest_framework.views import APIView

from agents_protocol.activity import recorder
from agents_protocol.audit import policy
from agents_protocol.audit.chain import PendingEvent, record_event
from agents_protocol.core.conf import pipeline_steps
from agents_protocol.core.config import current_config
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.invocation import run_handler
from agents_protocol.core.reserved import SESSION_CREATE
from agents_protocol.core.schema import validate_params
from agents_protocol.http import idempotency, limits
from agents_protocol.http.client import client_address, request_origin
from agents_protocol.http.cors import allow_any_origin, preflight_response
from agents_protocol.http.exceptions import method_not_allowed, refusal_for
from agents_protocol.http.parsers import AgentContentNegotiation
from agents_protocol.http.request_ids import new_request_id
from agents_protocol.http.responses import PipelineResponse

logger = logging.getLogger("agents_protocol.api")


class AgentView(APIView):
    """The pipeline. Subclasses implement `resolve` and their HTTP method handlers, which call
    `call_capability` for the capability `resolve` found."""

    content_negotiation_class = AgentContentNegotiation
    capability = None  # the CapabilitySpec this call runs, found by resolve()
    requires_session = False  # read by the permission step
    counts_per_session = True  # read by the throttle step: False counts every call per address
    format_kwarg = None  # no format suffixes
    idempotent_methods = ("POST",)  # the methods whose calls honour an Idempotency-Key

    # DRF's policies, read from AGENTS_PROTOCOL (imported once per settings change).
    def get_authenticators(self):
        return [step() for step in pipeline_steps.AUTHENTICATION_CLASSES]

    def get_permissions(self):
        return [step() for step in pipeline_steps.PERMISSION_CLASSES]

    def get_throttles(self):
        return [step() for step in pipeline_steps.THROTTLE_CLASSES]

    def get_parsers(self):
        return [step() for step in pipeline_steps.PARSER_CLASSES]

    def get_renderers(self):
        return [step() for step in pipeline_steps.RENDERER_CLASSES]

    def get_exception_handler(self):
        return pipeline_steps.EXCEPTION_HANDLER

    @property
    def default_response_headers(self):
        return {}  # no Allow or Vary on every answer: Allow goes with 405 only

    @cached_property
    def request_id(self):
        return new_request_id()

    @cached_property
    def origin(self):
        return request_origin(self.django_request)

    def dispatch(self, request, *args, **kwargs):
        self.started_ns = time.perf_counter_ns()
        # Django's HttpRequest, read directly where the pipeline reads its own attributes (method,
        # path, META …): through DRF's Request each read is a failed lookup before __getattr__.
        self.django_request = request
        self.agent_session = None
        if request.method == "OPTIONS":  # the CORS preflight: nothing to authenticate or count
            return preflight_response(self.preflight_methods(request))
        return super().dispatch(request, *args, **kwargs)

    def preflight_methods(self, request):
        return self.allowed_methods

    def initial(self, request, *args, **kwargs):
        """DRF's initial() (negotiation, authentication, permissions, throttles), after the
        transport found the call; without format suffixes or versioning, which agents do not use."""
        self.refusal = self.audited_call = self.idempotency_claim = None
        self.config = current_config()
        if not hasattr(self, self.django_request.method.lower()):
            self.http_method_not_allowed(request)
        self.resolve(request, *args, **kwargs)
        request.accepted_renderer, request.accepted_media_type = self.perform_content_negotiation(request)
        self.perform_authentication(request)
        self.agent_session = request.auth
        self.check_permissions(request)
        self.check_throttles(request)

    def resolve(self, request, *args, **kwargs):
        """Find the call: set `capability` and `requires_session` (and whatever the transport needs)."""
        raise NotImplementedError

    def http_method_not_allowed(self, request, *args, **kwargs):
        raise method_not_allowed([method for method in self.allowed_methods if method != "OPTIONS"])

    def check_throttles(self, request):
        if self.capability is not None and request.auth is not None:
            self.audited_call = AuditedCall(request.auth, self.capability.name)  # a 429 is audited too
        super().check_throttles(request)

    def throttled(self, request, wait):
        usage = limits.usage_of(request)
        if usage is not None and usage.exceeded:
            raise limits.rate_limited(usage)
        own = limits.capability_usage_of(request)
        if own is not None and own.exceeded:
            raise limits.capability_rate_limited(self.capability, own)
        super().throttled(request, wait)

    def call_capability(self, body, query=None, path=None):
        """Parameters → Idempotency-Key → handler → provider: the capability's data, or the
        Response stored for a replayed Idempotency-Key."""
        capability, session = self.capability, self.request.auth
        params = validate_params(capability.params, body, query or {}, path or {})
        if self.audited_call is not None:
            self.audited_call.params = params
        replay = self.replay_or_claim(session, body)
        if replay is not None:
            if self.audited_call is not None:
                self.audited_call.replayed = True
            return replay
        pending = self.audited_call.prepare(self.django_request) if self.audited_call else None
        data = run_handler(self.config, capability, params, session, self.origin,
                           append_audit_event=self.change_recorder(pending))
        if self.audited_call is not None:
            self.audited_call.handled = True
        return data

    def change_recorder(self, pending):
        """What the handler's record_change() runs in the transaction of the call's change: the
        call's audit event, and its Idempotency-Key marked as having changed something, so that a
        retry after an answer lost in between (a worker killed, a failure while answering) is
        never run a second time. None when there is neither."""
        claim = self.idempotency_claim
        if pending is None and claim is None:
            return None

        def record_change():
            if pending is not None:
                pending.append_with_change()
            if claim is not None:
                idempotency.mark_changed(claim)

        return record_change

    def replay_or_claim(self, session, body):
        """For a POST with an Idempotency-Key: the stored answer, or None once the key is claimed.
        A capability that only reads (method GET, reached by POST through A2A, PactSpec or MCP)
        ignores the key: running it again changes nothing, and keeping its answers a day would
        store every page a client asks for under a fresh key."""
        request = self.django_request
        changes = request.method in self.idempotent_methods and self.capability.method != "GET"
        key = idempotency.key_from(request) if changes else None
        if key is None:
            return None
        scope = idempotency.scope_for(session, client_address(request))
        outcome = idempotency.begin(scope, key, idempotency.fingerprint(request.method, request.path,
                                                                        self.capability.name, body))
        if isinstance(outcome, idempotency.Replay):
            return PipelineResponse(outcome.body, status=outcome.status, headers={"Idempotent-Replayed": "true"})
        self.idempotency_claim = outcome
        return None

    def handle_exception(self, exc):
        """Answer the refusal through the exception handler, as one CapabilityError."""
        return super().handle_exception(self.refuse(exc))

    def refuse(self, exc):
        """The call's refusal for `exc` (kept for the audit event); a 429 when counting the
        refused call against the client address went over the limit."""
        self.refusal = self.count_refused_call() or refusal_for(exc, self.request_id)
        return self.refusal

    def count_refused_call(self):
        """Count a call refused before it was counted against the client address: the 429 (or
        503) CapabilityError that counting raised, else None."""
        request = self.request
        if limits.counted(request):
            return None
        try:
            limits.enforce(request)
        except CapabilityError as over_limit:
            return over_limit
        except Exception:  # the configuration itself could not be read: the refusal says so already
            logger.debug("Could not count a refused call", exc_info=True)
        return None

    def finalize_response(self, request, response, *args, **kwargs):
        if isinstance(response, Response):
            response = self.rendered(response)
        self.record(response)
        self.keep_for_replay(response)
        for name, value in limits.response_headers(request).items():
            response[name] = value
        response["X-Request-ID"] = self.request_id
        response["Cache-Control"] = "no-store"
        response = allow_any_origin(response)
        self.record_activity(response)
        return response

    def rendered(self, response):
        """`response` written by the renderer; data JSON cannot carry becomes the 500 answer."""
        renderer = getattr(self.request, "accepted_renderer", None) or self.get_renderers()[0]
        try:
            response.content = renderer.render(response.data, renderer.media_type, {"view": self, "response": response})
        except Exception as error:
            return self.rendered(self.handle_exception(error))
        if renderer.charset and renderer.charset != response.charset:  # a site's renderer of another charset
            response.charset = renderer.charset
        media_type = renderer.media_type
        response["Content-Type"] = f"{media_type}; charset={renderer.charset}" if renderer.charset else media_type
        return response

    def outcome(self, response):
        """(status, code) of the call, as its audit event records it."""
        if self.refusal is not None:
            return self.refusal.status, self.refusal.code
        return response.status_code, None

    def record(self, response):
        """Append this call to its session's audit chain, refused and failed calls included.

        A handler that recorded its change (CallContext.record_change) appended the event
        already, in the transaction of the change: kept if the handler then returned, or if
        that transaction committed before the handler failed. Otherwise the event made before
        the call is appended here when the call succeeded, or an event of the failure. Of the
        calls a rate limit refuses, the session's first in each window of that limit is recorded.
        """
        call = self.audited_call
        if call is None or call.recorded_by_handler:
            return
        status, code = self.outcome(response)
        if code == "rate_limited" and not limits.first_refusal_in_session(self.request, call.session):
            return
        policy_result = policy.REPLAYED if call.replayed else policy.denied(code) if code else policy.ALLOW
        try:
            if call.pending and not call.pending.appended and (status, policy_result) == (200, policy.ALLOW):
                call.pending.append()
            else:
                record_event(call.session, capability=call.capability, method=self.django_request.method,
                             path=self.django_request.path, params=call.params, response_status=status,
                             policy_result=policy_result, hint=self.refusal.message if code else "")
        except Exception:
            # The call has already happened; losing its record is logged, never hidden behind a 500.
            logger.exception("Could not record the audit event (request id %s)", self.request_id)

    def call_name(self):
        """The name the activity page counts this call under: its capability's, or empty."""
        return self.capability.name if self.capability is not None else ""

    def record_activity(self, response):
        status, code = self.outcome(response)
        session = self.agent_session or (self.audited_call.session if self.audited_call else None)
        duration_us = (time.perf_counter_ns() - self.started_ns) // 1000
        recorder.calls.add(self.call_name(), session, status, code, duration_us)

    def keep_for_replay(self, response):
        """Store this answer under the Idempotency-Key it claimed (or release the key)."""
        if self.idempotency_claim is None:
            return
        outcome_status, _ = self.outcome(response)
        try:
            idempotency.finish(self.idempotency_claim, outcome_status, response.status_code, response.data)
        except Exception:
            # The answer is on its way; a retry gets 409 (in flight, then idempotency_outcome_unknown
            # if the call changed something, else it runs again once the lease ends).
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

    @classmethod
    def opening(cls, session, agent, site):
        """The session.create call: its params are the agent's, with the session's public id and the
        site's URL (`site`), which bind the signed chain to the session and site its artifact names
        (the signature covers the events only)."""
        return cls(session, SESSION_CREATE, {**agent, "session_id": session.public_id, "site": site})

    def prepare(self, request):
        """The event of this call succeeding, made before the handler runs."""
        self.pending = PendingEvent(self.session, capability=self.capability, method=request.method,
                                    path=request.path, params=self.params, response_status=200,
                                    policy_result=policy.ALLOW)
        return self.pending
