"""Every refusal and failure of the pipeline as the protocol's envelope (EXCEPTION_HANDLER).

`{"ok": false, "error": "<sentence>", "code": "<machine_code>", "fields"?: {name: problem}}`
with its status and headers; never an HTML page, never a traceback. `refusal_for` turns any
exception into a CapabilityError, so every transport words its refusals alike; the pipeline
reads the refusal back from the handler's answer (`refusal_in`) and each transport writes it
in its own wire format (AgentView.wire_refusal).
"""
import logging

from django.core.exceptions import SuspiciousOperation
from rest_framework import exceptions as drf

from agents_protocol.core.errors import REFUSAL_STATUSES, CapabilityError, envelope_of, is_database_outage
from agents_protocol.http import routing
from agents_protocol.http.authentication import REALM_HEADER
from agents_protocol.http.parsers import unsupported_media_type
from agents_protocol.http.responses import PipelineResponse

logger = logging.getLogger("agents_protocol.api")


def database_unavailable():
    return CapabilityError(503, "backend_unavailable", "The shop's database is unavailable; retry shortly.",
                           headers={"Retry-After": "5"})


def envelope_exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: the envelope Response for `exc` (never None: nothing escapes as HTML)."""
    refusal = refusal_for(exc, request_id_of(context))
    return PipelineResponse(envelope_of(refusal), status=refusal.status, headers=refusal.headers)


def request_id_of(context):
    view = context.get("view")
    return getattr(view, "request_id", "-")


def refusal_for(exc, request_id="-"):
    """The CapabilityError an agent is answered for `exc`; unexpected errors are logged."""
    if isinstance(exc, CapabilityError):
        return exc
    if isinstance(exc, routing.MethodNotAllowed):
        return method_not_allowed(exc.allowed)
    if isinstance(exc, routing.RouteNotFound):
        return CapabilityError(404, "not_found", "No capability is served at this path; see /.well-known/agents.json.")
    if isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):  # a shop's own AUTHENTICATION_CLASSES
        code = "session_required" if isinstance(exc, drf.NotAuthenticated) else "session_invalid"
        return CapabilityError(401, code, str(exc.detail), headers={"WWW-Authenticate": REALM_HEADER})
    if isinstance(exc, drf.PermissionDenied):  # a shop's own PERMISSION_CLASSES
        return CapabilityError(403, "forbidden", str(exc.detail))
    if isinstance(exc, drf.Throttled):
        return throttled(exc)
    if isinstance(exc, drf.UnsupportedMediaType):
        return unsupported_media_type()
    if isinstance(exc, SuspiciousOperation):
        # What Django answers 400 for (unknown Host, too many parameters …), logged where Django logs it.
        logging.getLogger(f"django.security.{type(exc).__name__}").error(str(exc))
        return CapabilityError(400, "invalid_request",
                               "The request was refused as malformed (an unexpected Host header or too many parameters).")
    if is_database_outage(exc):
        # The database went away (or is locked past the busy timeout) mid-call: retrying later works.
        logger.error("The database failed in the agent API (request id %s)", request_id, exc_info=exc)
        return database_unavailable()
    logger.error("Unexpected error in the agent API (request id %s)", request_id, exc_info=exc)
    return CapabilityError(500, "internal_error",
                           f"Something went wrong on our side; retry with backoff. Request id: {request_id}.")


def refusal_in(response):
    """The refusal an exception handler's envelope Response says, as a CapabilityError: its status,
    code, sentence and fields (what the audit event and the activity page record, and what each
    transport writes in its own wire format)."""
    data = response.data if isinstance(response.data, dict) else {}
    status = response.status_code if response.status_code in REFUSAL_STATUSES else 500
    return CapabilityError(status, data.get("code", "internal_error"), data.get("error", ""), data.get("fields"))


def method_not_allowed(allowed):
    return CapabilityError(405, "method_not_allowed", f"Use {' or '.join(allowed)} on this endpoint.",
                           headers={"Allow": ", ".join([*allowed, "OPTIONS"])})


def throttled(exc):
    """The 429 for DRF's Throttled, raised by a throttle a shop adds (ours raise limits.rate_limited)."""
    wait = max(1, int(exc.wait or 1))
    return CapabilityError(429, "rate_limited", f"Too many requests. Retry in {wait} seconds.",
                           headers={"Retry-After": str(wait)})
