"""The Agentic Commerce Protocol's checkout (API version 2026-04-17), REST at the site's root.

    POST /checkout_sessions                  create (201)
    GET  /checkout_sessions/{id}             retrieve
    POST /checkout_sessions/{id}             update
    POST /checkout_sessions/{id}/complete    complete (pay through a handler, 3-D Secure, or escalate)
    POST /checkout_sessions/{id}/cancel      cancel (405 once completed or canceled)

A thin transport on the pipeline (http/pipeline.py), on the checkout core UCP uses. The caller
is a platform (platforms/): its API key authenticates it (401 otherwise), its own limits
count its calls and open checkouts, and a checkout of another platform is not found (404).
Each checkout is an agent session of its own, made with it, so its calls get the signed audit
trail, the admin's session page and the activity page. Every call names a supported `API-Version` (400
with `supported_versions`); every POST has an `Idempotency-Key` (400 `idempotency_key_required`),
scoped to the platform and path, replayed by the pipeline's Idempotency step; `Request-Id` and
the key are echoed. Refusals are ACP's flat error `{"type", "code", "message", "param"?}`.
"""
import logging
from decimal import Decimal

from django.db import transaction
from django.utils import timezone
from rest_framework.throttling import BaseThrottle

from agents_protocol.checkout import services
from agents_protocol.checkout.models import CheckoutSession, CommerceConfig
from agents_protocol.core.config import CapabilitySpec
from agents_protocol.core.errors import CapabilityError, not_found
from agents_protocol.http import limits
from agents_protocol.http.client import client_address
from agents_protocol.http.exceptions import method_not_allowed
from agents_protocol.http.idempotency import HEADER as IDEMPOTENCY_HEADER
from agents_protocol.http.pipeline import AgentView
from agents_protocol.http.responses import PipelineResponse
from agents_protocol.platforms import signatures
from agents_protocol.platforms.authentication import PlatformKeyAuthentication
from agents_protocol.platforms.models import Platform
from agents_protocol.transports import acp_shapes

CREATE, GET, UPDATE, COMPLETE, CANCEL = (f"acp.checkout.{name}" for name in ("create", "get", "update", "complete",
                                                                              "cancel"))
# (names a checkout, its action, the method) → the call, as audit and activity count it
OPERATIONS = {
    (False, "", "POST"): CREATE,
    (True, "", "GET"): GET,
    (True, "", "POST"): UPDATE,
    (True, "complete", "POST"): COMPLETE,
    (True, "cancel", "POST"): CANCEL,
}
# Each change's body: the spec's schema of it
REQUEST_SCHEMAS = {CREATE: "CheckoutSessionCreateRequest", UPDATE: "CheckoutSessionUpdateRequest",
                   COMPLETE: "CheckoutSessionCompleteRequest", CANCEL: "CancelSessionRequest"}
NO_ADDRESS_LIMIT = 2**31 - 1  # a platform's checkouts are bounded by its own budget, not per address
MAX_ECHO_LENGTH = 255

security_logger = logging.getLogger("agents_protocol.security")


def error_body(refusal):
    """ACP's flat Error for a refusal: its `param` is the one JSONPath the refusal names, if any."""
    kind = ("service_unavailable" if refusal.status == 503 else "processing_error" if refusal.status >= 500
            else "invalid_request")
    body = {"type": kind, "code": refusal.code, "message": refusal.message}
    if refusal.fields and len(refusal.fields) == 1 and next(iter(refusal.fields)).startswith("$"):
        body["param"] = next(iter(refusal.fields))
    return body


def version_refusal(code, message, versions):
    refusal = CapabilityError(400, code, message)
    refusal.supported_versions = list(versions)
    return refusal


def canonical(value):
    """`value` with integral numbers as integers: 1.0 and 1 are one request (§6.2)."""
    if isinstance(value, dict):
        return {key: canonical(item) for key, item in value.items()}
    if isinstance(value, list):
        return [canonical(item) for item in value]
    if isinstance(value, (float, Decimal)) and not isinstance(value, bool) and value == int(value):
        return int(value)
    return value


class PlatformRateThrottle(BaseThrottle):
    """The platform's own requests_per_minute (admin), whatever its addresses."""

    usage = None

    def allow_request(self, request, view):
        platform = view.platform
        self.usage = limits.count_as(request, f"platform:{platform.pk}", platform.requests_per_minute)
        return self.usage is None or not self.usage.exceeded

    def wait(self):
        return self.usage.retry_after if self.usage else None


class AcpView(AgentView):
    checkout = platform = None
    target = None

    def get_authenticators(self):
        return [PlatformKeyAuthentication()]

    def get_throttles(self):
        return [PlatformRateThrottle()]

    def resolve(self, request, target=None, action=""):
        self.commerce = CommerceConfig.load()
        if not self.commerce.acp_enabled:
            raise not_found("This shop does not serve the Agentic Commerce Protocol.")
        method = self.django_request.method
        name = OPERATIONS.get((target is not None, action, method))
        if name is None:
            allowed = [m for (named, a, m) in OPERATIONS if named == (target is not None) and a == action]
            if not allowed:
                raise not_found("Nothing is served at this path.")
            raise method_not_allowed(allowed)
        self.capability = CapabilitySpec(name=name, endpoint=self.django_request.path, method=method,
                                         requires_session=False)
        self.check_version()
        timestamp = self.django_request.META.get("HTTP_TIMESTAMP")
        if timestamp is not None and signatures.parsed_timestamp(timestamp) is None:  # signed or not
            raise CapabilityError(400, "invalid_request", signatures.TIMESTAMP_FORMAT)
        self.target = target
        if target is not None:
            self.checkout = (CheckoutSession.objects.select_related("agent_session")
                             .filter(public_id=target, platform__isnull=False).first())

    def check_version(self):
        versions = self.commerce.acp_versions
        sent = self.django_request.META.get("HTTP_API_VERSION", "").strip()
        if not sent:
            raise version_refusal("missing_api_version", "Send the API-Version header.", versions)
        if sent not in versions:
            raise version_refusal("unsupported_api_version", f"API-Version {sent[:40]!r} is not supported.",
                                  versions)

    def authenticate(self, request):
        """The platform, or the 401 (recorded in the named checkout's audit trail, if any); a
        checkout of another platform is not found."""
        try:
            super().authenticate(request)
        except CapabilityError as refusal:
            if refusal.status == 401:
                self.agent_session = self.checkout.agent_session if self.checkout is not None else None
                security_logger.info("ACP call refused (%s) from %s", refusal.code, client_address(self.django_request))
            raise
        self.platform = request.user.platform
        if self.target is not None and (self.checkout is None or self.checkout.platform_id != self.platform.pk):
            self.agent_session = self.checkout = None
            raise not_found(f"Checkout session {self.target[:100]} not found.")

    def idempotency_scope(self):
        """The platform and the path (§6.1): one key on two endpoints is two requests."""
        return f"platform:{self.platform.pk}:{self.django_request.path}"

    def wire_refusal(self, response, exc):
        response.data = error_body(self.refusal)
        versions = getattr(exc, "supported_versions", None)
        if versions is not None:
            response.data["supported_versions"] = versions
        if self.refusal.code == "requires_3ds":
            response.data["param"] = "$.authentication_result"
        return self.echoed(response)

    def call_name(self):
        return self.capability.name if self.capability is not None else "acp"

    def get(self, request, *args, **kwargs):
        return self.answer(self.checkout)

    def post(self, request, *args, **kwargs):
        """A change: the answer kept for its Idempotency-Key, else the operation, in one transaction
        that also marks the key as having changed something."""
        if IDEMPOTENCY_HEADER not in self.django_request.META:
            raise CapabilityError(400, "idempotency_key_required",
                                  "Idempotency-Key header is required on all POST requests.")
        body = self.body()
        acp_shapes.validate(body, REQUEST_SCHEMAS[self.capability.name])
        operation = {CREATE: self.create, UPDATE: self.update, COMPLETE: self.complete,
                     CANCEL: self.cancel}[self.capability.name]

        def handler(record_change):
            with transaction.atomic():
                response = operation(body)
                if record_change is not None:
                    record_change()
            return response

        return self.echoed(self.handled_call(acp_shapes.audited(body), canonical(body), handler))

    def create(self, body):
        changes = acp_shapes.checkout_changes(body)
        config, platform = self.config, self.platform
        Platform.objects.select_for_update().filter(pk=platform.pk).first()  # one create of a platform at a time
        refuse_over_budget(platform)
        session, _token = self.open_session({"agent_name": platform.name[:100], "purpose": "ACP checkout session"},
                                            max_sessions=NO_ADDRESS_LIMIT)
        checkout = services.open_checkout(services.Caller(config, session, self.origin), changes, platform=platform,
                                          platform_interventions=acp_shapes.declared_interventions(body))
        return self.answer(checkout, status=201)

    def update(self, body):
        changes = acp_shapes.checkout_changes(body)
        return self.answer(services.update_checkout(self.caller(), self.checkout, changes))

    def complete(self, body):
        instrument = acp_shapes.payment_instrument(body)
        checkout = self.checkout
        if checkout.status == CheckoutSession.Status.CHALLENGED and instrument.authentication is None:
            raise CapabilityError(400, "requires_3ds", "This checkout session requires issuer authentication. The "
                                                       "request must include 'authentication_result'.",
                                  fields={"$.authentication_result": "required"})
        if not any(h["id"] == instrument.handler_id for h in acp_shapes.handlers_for(self.platform, self.origin)):
            raise acp_shapes.invalid(f"Unsupported payment handler {instrument.handler_id[:100]!r}; the session's "
                                     "capabilities.payment.handlers lists the accepted ones.", "$.payment_data.handler_id")
        return self.answer(services.complete_checkout(self.caller(), checkout, instrument))

    def cancel(self, body):
        if self.checkout.is_final:
            raise CapabilityError(405, "cancel_not_allowed", f"A {acp_shapes.STATUSES[self.checkout.status]} checkout session "
                                                  "cannot be canceled.", headers={"Allow": "POST, OPTIONS"})
        return self.answer(services.cancel_checkout(self.checkout))

    def caller(self):
        return services.Caller(self.config, self.checkout.agent_session, self.origin)

    def body(self):
        return self.json_object_body(acp_shapes.invalid)

    def answer(self, checkout, status=200):
        data = acp_shapes.checkout_object(checkout, self.origin, self.platform, self.commerce.acp_intervention_types)
        return self.echoed(PipelineResponse(data, status=status))

    def echoed(self, response):
        """`response` with the request's Request-Id and Idempotency-Key echoed (printable ones)."""
        for header, name in (("HTTP_REQUEST_ID", "Request-Id"), (IDEMPOTENCY_HEADER, "Idempotency-Key")):
            value = self.django_request.META.get(header, "")
            if value and len(value) <= MAX_ECHO_LENGTH and value.isprintable() and value.isascii():
                response[name] = value
        return response


def refuse_over_budget(platform):
    """429 once the platform holds its max_open_checkouts live checkout sessions."""
    now = timezone.now()
    open_checkouts = (CheckoutSession.objects.filter(platform=platform, agent_session__ended_at__isnull=True,
                                                     agent_session__expires_at__gt=now)
                      .exclude(status__in=CheckoutSession.FINAL_STATUSES).count())
    if open_checkouts >= platform.max_open_checkouts:
        raise CapabilityError(429, "too_many_checkouts",
                              f"This platform holds {open_checkouts} open checkout sessions, its limit; complete or "
                              "cancel some first.", headers={"Retry-After": "60"})


view = AcpView.as_view()
