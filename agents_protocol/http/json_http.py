"""JSON answers of the interop endpoints (PactSpec skills, A2A JSON-RPC): CORS, never cached."""
import logging

import simplejson
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse

from agents_protocol.core.errors import CapabilityError
from agents_protocol.http import limits
from agents_protocol.http.cors import allow_any_origin

logger = logging.getLogger("agents_protocol.interop")


def json_response(payload, status=200, headers=None):
    body = simplejson.dumps(payload, use_decimal=True, ensure_ascii=False, separators=(",", ":"))
    response = HttpResponse(body, status=status, content_type="application/json")
    for name, value in (headers or {}).items():
        response[name] = value
    response["Cache-Control"] = "no-store"
    return allow_any_origin(response)


def envelope_error(error):
    """The protocol's error envelope for a CapabilityError, with its status and headers."""
    body = {"ok": False, "error": error.message, "code": error.code}
    if error.fields:
        body["fields"] = error.fields
    return json_response(body, error.status, error.headers)


def internal_error(where, error):
    """The envelope for an unexpected error: 503 when the database failed (retrying works), else 500."""
    if isinstance(error, (OperationalError, InterfaceError)):
        logger.exception("The database failed in %s", where)
        return envelope_error(CapabilityError(503, "backend_unavailable", "The shop's database is unavailable; "
                                              "retry shortly.", headers={"Retry-After": "5"}))
    logger.exception("Unexpected error in %s", where)
    return envelope_error(CapabilityError(500, "internal_error", "Something went wrong on our side; retry with backoff."))


def method_not_allowed(allowed):
    return envelope_error(CapabilityError(
        405, "method_not_allowed", f"Use {' or '.join(allowed)} here.", headers={"Allow": ", ".join([*allowed, "OPTIONS"])}
    ))


def with_rate_limit_headers(request, response):
    """The X-RateLimit-* headers of a call that was counted (see api/limits.py)."""
    for name, value in limits.response_headers(request).items():
        response[name] = value
    return response


def over_limit(request):
    """Count a refused call against the client address unless it was counted already, as the
    agent API does; the 429 CapabilityError when that goes over the limit, else None."""
    try:
        limits.enforce(request)
    except CapabilityError as error:
        return error
    return None
