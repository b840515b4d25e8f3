"""The Universal Commerce Protocol's REST binding (protocol version 2026-01-11).

    POST /checkout-sessions                  create (201)
    GET  /checkout-sessions/{id}             get
    PUT  /checkout-sessions/{id}             update
    POST /checkout-sessions/{id}/complete    complete (pay through a handler, or escalate)
    POST /checkout-sessions/{id}/cancel      cancel
    GET  /orders/{id}                        the order a completed checkout made
    PUT  /orders/{id}                        record fulfillment events and adjustments

A thin transport on the pipeline (http/pipeline.py): it finds the call (`resolve`), names its
principal and writes UCP's error shape; sessions, limits, Idempotency-Key, audit and activity
are the pipeline's. A checkout session is an agent session of its own, made with it: the
checkout's id in the path (unguessable) is the credential, as UCP has no other. The
`UCP-Agent` header names the platform's profile and the version it speaks: the profile is
fetched through outbound/ (profiles.py), and a newer version than this business's, in the header
or the profile, is refused (400 version_unsupported), as is a profile that cannot be used (400
invalid_profile).
"""
import re

from django.db import transaction
from django.utils.functional import cached_property
from rest_framework.authentication import BaseAuthentication

from agents_protocol.checkout import services
from agents_protocol.checkout.models import CheckoutSession, CommerceConfig
from agents_protocol.core.config import CapabilitySpec
from agents_protocol.core.errors import not_found
from agents_protocol.core.conf import pipeline_steps
from agents_protocol.http import steps
from agents_protocol.http.authentication import AgentUser
from agents_protocol.http.exceptions import method_not_allowed
from agents_protocol.http.pipeline import AgentView
from agents_protocol.http.request_ids import new_request_id
from agents_protocol.http.responses import PipelineResponse
from agents_protocol.outbound import profiles
from agents_protocol.transports import ucp_shapes

CHECKOUT_SESSIONS, ORDERS = "checkout-sessions", "orders"
CREATE, GET, UPDATE, COMPLETE, CANCEL = (f"ucp.checkout.{name}" for name in ("create", "get", "update", "complete",
                                                                              "cancel"))
ORDER_GET, ORDER_UPDATE = "ucp.order.get", "ucp.order.update"
# (what the path names, its action, the method) → the call, as audit and activity count it
OPERATIONS = {
    (CHECKOUT_SESSIONS, None, "POST"): CREATE,
    (CHECKOUT_SESSIONS, "", "GET"): GET,
    (CHECKOUT_SESSIONS, "", "PUT"): UPDATE,
    (CHECKOUT_SESSIONS, "complete", "POST"): COMPLETE,
    (CHECKOUT_SESSIONS, "cancel", "POST"): CANCEL,
    (ORDERS, "", "GET"): ORDER_GET,
    (ORDERS, "", "PUT"): ORDER_UPDATE,
}
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# UCP's severities: a refusal the agent can fix by another request, or one only the buyer can.
RECOVERABLE = "recoverable"
REPLAY_CONFLICT_CODES = {"idempotency_conflict"}  # UCP: a key reused for another request is 409


class CheckoutAuthentication(BaseAuthentication):
    """The agent session the checkout (or order) in the path was made with."""

    def authenticate(self, request):
        checkout = getattr(request.parser_context["view"], "checkout", None)
        if checkout is None:
            return None
        return AgentUser(checkout.agent_session), checkout.agent_session


def error_body(refusal):
    """UCP's error: `messages` of type error with a code and severity, and `detail` (the
    sentence, as the conformance suite reads it) and `code`."""
    message = {"type": "error", "code": refusal.code, "content": refusal.message, "severity": RECOVERABLE}
    if refusal.fields and len(refusal.fields) == 1 and next(iter(refusal.fields)).startswith("$"):
        message["path"] = next(iter(refusal.fields))
    return {"messages": [message], "detail": refusal.message, "code": refusal.code}


def platform_profile(request):
    """The platform's profile named by the UCP-Agent header, fetched through outbound/ (cached),
    or None when the header names none; a 400 for one that cannot be used or is too new."""
    return profiles.platform_profile_of(request.META.get("HTTP_UCP_AGENT", ""))


class UcpIdempotency(steps.Idempotency):
    """UCP's Idempotency-Key: on its PUT (update) as well as its POSTs."""

    methods = ("POST", "PUT")


class UcpView(AgentView):
    """UCP's principal is the checkout in the path, its idempotency covers PUT: the pipeline's
    steps otherwise (STEP_CLASSES)."""

    checkout = None

    def get_authenticators(self):
        return [CheckoutAuthentication()]

    def get_steps(self):
        return [UcpIdempotency() if step is steps.Idempotency else step() for step in pipeline_steps.STEP_CLASSES]

    def wire_refusal(self, response, exc):
        """The refusal in UCP's error shape; a key reused for another request is UCP's 409."""
        refusal = self.refusal
        response.data = error_body(refusal)
        if refusal.code in REPLAY_CONFLICT_CODES:
            response.status_code = 409
        return response

    def resolve(self, request, kind, target=None, action=""):
        if not CommerceConfig.load().ucp_enabled:
            raise not_found("This shop does not serve the Universal Commerce Protocol.")
        method = self.django_request.method
        name = OPERATIONS.get((kind, None if target is None else action, method))
        if name is None:
            allowed = [m for (k, a, m) in OPERATIONS if k == kind and a == (None if target is None else action)]
            if not allowed:
                raise not_found("Nothing is served at this path.")
            raise method_not_allowed(allowed)
        self.capability = CapabilitySpec(name=name, endpoint=self.django_request.path, method=method,
                                         requires_session=name != CREATE)
        self.requires_session = self.capability.requires_session
        self.agent = profiles.ucp_agent_fields(self.django_request.META.get("HTTP_UCP_AGENT", ""))
        profiles.negotiated_version(self.agent.get("version"))
        if target is not None:
            self.checkout = find_checkout(kind, target)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        # After the throttles: the profile fetch is the shop's own request, which a flood of calls
        # naming new URLs must not multiply.
        self.platform = platform_profile(self.django_request)

    def call_name(self):
        return self.capability.name if self.capability is not None else "ucp"

    def get(self, request, *args, **kwargs):
        if self.capability.name == ORDER_GET:
            return self.answer(ucp_shapes.order_object(self.checkout, self.origin))
        checkout = services.follow_handoff(self.caller(), self.checkout)
        return self.answer(ucp_shapes.checkout_object(checkout, self.origin))

    def post(self, request, *args, **kwargs):
        """A call that changes something: the answer kept for its Idempotency-Key, else the
        operation, in one transaction that also marks the key as having changed something (so a
        retry after a lost answer is never run twice)."""
        body = self.body()
        operation = {CREATE: self.create, UPDATE: self.update, COMPLETE: self.complete, CANCEL: self.cancel,
                     ORDER_UPDATE: self.update_order}[self.capability.name]

        def handler(record_change):
            with transaction.atomic():
                response = operation(body)
                if record_change is not None:
                    record_change()
            return response

        # No parameters for the audit trail: a complete's body holds payment credentials.
        return self.handled_call({}, body, handler)

    put = post

    def create(self, body):
        changes = ucp_shapes.checkout_changes(body, creating=True)
        session, _token = self.open_session({"agent_name": "UCP platform", "purpose": "UCP checkout session"})
        checkout = services.open_checkout(services.Caller(self.config, session, self.origin), changes,
                                          platform_profile_url=profile_url(self.agent))
        return self.answer(ucp_shapes.checkout_object(checkout, self.origin), status=201)

    def update(self, body):
        changes = ucp_shapes.checkout_changes(body, creating=False)
        if body.get("id", self.checkout.public_id) != self.checkout.public_id:
            raise ucp_shapes.invalid("The body's id is not the checkout's in the path.", "$.id")
        return self.answer(ucp_shapes.checkout_object(
            services.update_checkout(self.caller(), self.checkout, changes), self.origin))

    def complete(self, body):
        instrument = ucp_shapes.payment_instrument(body)
        checkout = services.follow_handoff(self.caller(), self.checkout)
        return self.answer(ucp_shapes.checkout_object(
            services.complete_checkout(self.caller(), checkout, instrument), self.origin))

    def cancel(self, body):
        return self.answer(ucp_shapes.checkout_object(services.cancel_checkout(self.checkout), self.origin))

    def update_order(self, body):
        events, adjustments = ucp_shapes.order_records(body)
        checkout = services.record_on_order(self.checkout, events=events, adjustments=adjustments)
        return self.answer(ucp_shapes.order_object(checkout, self.origin))

    def caller(self):
        return services.Caller(self.config, self.request.auth, self.origin)

    def body(self):
        return self.json_object_body(ucp_shapes.invalid)

    def answer(self, data, status=200):
        return PipelineResponse(data, status=status)

    @cached_property
    def request_id(self):
        """The platform's Request-Id (a UUID), for tracing: the logs and X-Request-ID carry it, as
        the 32 hex digits every X-Request-ID has."""
        sent = self.django_request.META.get("HTTP_REQUEST_ID", "")
        return sent.replace("-", "").lower() if UUID.fullmatch(sent) else new_request_id()


def profile_url(agent):
    url = agent.get("profile", "")
    return url if url.startswith(("https://", "http://")) and len(url) <= 2000 else ""


def find_checkout(kind, target):
    if kind == ORDERS:
        checkout = CheckoutSession.objects.select_related("agent_session").filter(order_key=target).first()
        if checkout is None:
            raise not_found(f"Order {target} not found.")
        return checkout
    checkout = CheckoutSession.objects.select_related("agent_session").filter(public_id=target).first()
    if checkout is None:
        raise not_found(f"Checkout session {target} not found.")
    return checkout


view = UcpView.as_view()
