"""The one pipeline every transport runs (agent API, A2A, PactSpec, MCP): a Django REST framework view.

A transport is a subclass that says how it finds the call (`resolve`), answers it (its HTTP
method handlers), and writes a refusal in its own wire format (`wire_refusal`); everything
else is here, once, in one order for every transport:

    initial()    a method the view has (405) → the body's declared size (411, 413)
                 → resolve: the transport finds the call (a configured route, a skill, a
                   JSON-RPC message …); a transport whose call is named inside the body (A2A,
                   MCP, PactSpec's dispatcher) reads the body here, the others later
                 → negotiation → authentication (AUTHENTICATION_CLASSES): the agent session
                   (MCP asks for it inside resolve(), before it reads more of the message)
                 → permission: a session where the capability requires one (401)
                 → throttle: requests_per_minute per session, else per client address, and
                   the capability's own calls_per_hour per client address (429)
    handler      the body parsed (PARSER_CLASSES), unless resolve read it → parameters through
                 the capability schema (400) → the steps' before_handler (STEP_CLASSES: the
                 Idempotency-Key's replay, 409, 422) → the capability's handler → the provider,
                 which runs the steps' change recorders in its own transaction (record_change)
    refusal      any exception, wherever raised: counted against the client address if the call
                 was not yet (so refusals buy no free budget: a refusal over the limit is the 429),
                 turned into the one refusal by EXCEPTION_HANDLER (the envelope's status, code,
                 sentence, fields), then written in the transport's wire format (`wire_refusal`)
    finalize     the renderer writes the answer (data JSON cannot carry is a 500) → the steps'
                 after(), in order: the audit event, the answer kept for its Idempotency-Key,
                 X-RateLimit-*, X-Request-ID and Cache-Control: no-store, CORS, the activity page
"""
import logging
import time
from typing import NamedTuple

from django.utils.functional import cached_property
from rest_framework.response import Response
from rest_framework.views import APIView

from agents_protocol.core.conf import pipeline_steps
from agents_protocol.core.config import current_config
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.invocation import run_handler
from agents_protocol.core.schema import validate_params
from agents_protocol.core.session_params import SESSION_CREATE_PARAMS
from agents_protocol.http import idempotency, limits
from agents_protocol.http.client import client_address, request_origin
from agents_protocol.http.cors import preflight_response
from agents_protocol.http.exceptions import envelope_exception_handler, method_not_allowed, refusal_in
from agents_protocol.http.parsers import AgentContentNegotiation, check_declared_length
from agents_protocol.http.request_ids import new_request_id
from agents_protocol.http.sessions import create_session

logger = logging.getLogger("agents_protocol.api")


class Opened(NamedTuple):
    """A session the call created, and the agent's fields it was created with."""

    session: object
    agent: dict


class AgentView(APIView):
    """The pipeline. A transport implements `resolve`, its HTTP method handlers, which call
    `call_capability` for the capability `resolve` found, and `wire_refusal`."""

    content_negotiation_class = AgentContentNegotiation
    capability = None  # the CapabilitySpec this call runs, found by resolve()
    requires_session = False  # read by the permission step
    counts_per_session = True  # read by the throttle step: False counts every call per address
    token_header = None  # the WSGI name of a transport's own session header (MCP), else the three token headers
    step_classes = None  # this view's steps; None: STEP_CLASSES
    format_kwarg = None  # no format suffixes

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

    def get_steps(self):
        return [step() for step in self.step_classes or pipeline_steps.STEP_CLASSES]

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
        self.agent_session = self.refusal = self.opened = None
        self.replayed = self.handled = self.authenticated = False
        if request.method == "OPTIONS":  # the CORS preflight: nothing to authenticate or count
            return preflight_response(self.preflight_methods(request))
        self.steps = self.get_steps()
        return super().dispatch(request, *args, **kwargs)

    def preflight_methods(self, request):
        return self.allowed_methods

    def initial(self, request, *args, **kwargs):
        """DRF's initial() (negotiation, authentication, permissions, throttles), after the body's
        declared size and the transport finding the call; without format suffixes or versioning,
        which agents do not use."""
        self.config = current_config()
        if not hasattr(self, self.django_request.method.lower()):
            self.http_method_not_allowed(request)
        check_declared_length(self.django_request)
        self.resolve(request, *args, **kwargs)
        request.accepted_renderer, request.accepted_media_type = self.perform_content_negotiation(request)
        self.authenticate(request)
        self.check_throttles(request)

    def json_object_body(self, refused):
        """The request's body, a JSON object ({} when none was sent); any other JSON is the
        transport's refusal `refused(sentence)`."""
        sent = self.django_request.META.get("CONTENT_LENGTH") not in (None, "", "0")
        data = self.request.data if sent else {}
        if not isinstance(data, dict):
            raise refused("The request body must be a JSON object.")
        return data

    def resolve(self, request, *args, **kwargs):
        """Find the call: set `capability` and `requires_session` (and whatever the transport needs)."""
        raise NotImplementedError

    def authenticate(self, request):
        """Authentication and permission: the call's agent session, or the 401 where it needs one.
        Once per request (a transport may ask for it in resolve(), as MCP does)."""
        if self.authenticated:
            return
        self.authenticated = True
        self.perform_authentication(request)
        self.agent_session = request.auth
        self.check_permissions(request)

    def http_method_not_allowed(self, request, *args, **kwargs):
        raise method_not_allowed([method for method in self.allowed_methods if method != "OPTIONS"])

    def throttled(self, request, wait):
        usage = limits.usage_of(request)
        if usage is not None and usage.exceeded:
            raise limits.rate_limited(usage)
        own = limits.capability_usage_of(request)
        if own is not None and own.exceeded:
            raise limits.capability_rate_limited(self.capability, own)
        super().throttled(request, wait)

    def call_capability(self, body, query=None, path=None):
        """Parameters → the steps' before_handler → handler → provider: the capability's data, or
        the Response a step answered instead (the one stored for a replayed Idempotency-Key)."""
        params = validate_params(self.capability.params, body, query or {}, path or {})
        return self.handled_call(params, body, lambda record_change: run_handler(
            self.config, self.capability, params, self.agent_session, self.origin, append_audit_event=record_change))

    def handled_call(self, params, body, handler):
        """The steps' before_handler, then `handler(record_change)`, which runs `record_change` (the
        steps' change recorders, or None) in the transaction of its change: its data, or the
        Response a step answered instead. A transport whose calls are no capability's (UCP's
        checkout operations) hands its own handler here."""
        request = self.request
        for step in self.steps:
            answer = step.before_handler(self, request, params, body)
            if answer is not None:
                self.replayed = True
                return answer
        data = handler(self.change_recorder())
        self.handled = True
        return data

    def idempotency_scope(self):
        """Whose Idempotency-Keys the call's is among: its session's, else its client address's."""
        return idempotency.scope_for(self.agent_session, client_address(self.django_request))

    def change_recorder(self):
        """What the handler's record_change() runs in the transaction of the call's change: each
        step's recorder (the audit event; the Idempotency-Key marked as having changed something, so
        that a retry after an answer lost in between is never run a second time). None without any."""
        recorders = []
        for step in self.steps:
            recorder = step.change_recorder(self)
            if recorder:
                recorders.append(recorder)
        if len(recorders) < 2:
            return recorders[0] if recorders else None

        def record_change():
            for recorder in recorders:
                recorder()

        return record_change

    def open_session(self, fields, max_sessions=None):
        """A new agent session for the agent's `fields` (SESSION_CREATE_PARAMS: validated here), made
        for the client address under the configuration's limits (`max_sessions` instead of its
        per-address one for a principal with a budget of its own): (session, raw token). Its
        session.create event is the audit step's.

        No Idempotency-Key here: a stored answer would hand this session's token to any client at
        the same address sending the same key and body (agents behind one NAT or cloud egress, with
        keys derived from the request). A retry makes a second session, which max_sessions bounds.
        """
        agent = validate_params(SESSION_CREATE_PARAMS, fields, {}, {})
        config, _ = self.config, self.origin  # a Host outside ALLOWED_HOSTS is refused before a session exists
        session, raw_token = create_session(client_address(self.django_request), config.session.ttl_seconds,
                                            max_sessions or config.rate_limit.max_sessions,
                                            audited=config.audit.enabled, **agent)
        self.opened = Opened(session, agent)
        return session, raw_token

    def audit_url(self, session):
        """Where the session's signed audit trail is fetched once it has ended."""
        return f"{self.origin}{self.config.audit.endpoint.replace(':session_id', session.public_id)}"

    def handle_exception(self, exc):
        """Every refusal and failure of every transport: counted, turned into the one refusal by
        the configured EXCEPTION_HANDLER, written in the transport's wire format."""
        exc = self.count_refused_call() or exc
        context = self.get_exception_handler_context()
        # A handler that leaves `exc` to DRF (None) gets the envelope, never Django's HTML page.
        response = self.get_exception_handler()(exc, context) or envelope_exception_handler(exc, context)
        response.exception = True
        self.refusal = refusal_in(response)
        return self.wire_refusal(response, exc)

    def wire_refusal(self, response, exc):
        """The exception handler's `response` for `exc` in the transport's wire format; `self.refusal`
        is what it says. The agent API's (and PactSpec's) is the envelope as it is."""
        return response

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
        for step in self.steps:
            response = step.after(self, request, response)
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
        """(status, code) of the call, as its audit event and the activity page record it."""
        if self.refusal is not None:
            return self.refusal.status, self.refusal.code
        return response.status_code, None

    def call_name(self):
        """The name the activity page counts this call under: its capability's, or empty."""
        return self.capability.name if self.capability is not None else ""
