"""Call one capability with its parameters as one JSON object, outside the agent API's routes.

`invoke_for_request` takes the steps the agent API takes for a configured endpoint —
session → rate limit → parameters → handler → provider, and an audit event for calls of a
session — for the PactSpec skills and A2A messages. It returns the handler's data or
raises CapabilityError, exactly as the API would answer.
"""
import logging

from agents_protocol.audit.chain import record_event
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.invocation import run_handler
from agents_protocol.core.schema import validate_params
from agents_protocol.http import limits
from agents_protocol.http.client import token_from_headers
from agents_protocol.http.sessions import authenticate

logger = logging.getLogger("agents_protocol.invocation")
def invoke_for_request(request, config, capability, params, origin):
    """The capability's data for `params`, for the session token the request carries."""
    try:
        session = session_for(config, capability, token_from_headers(request))
    except CapabilityError:
        limits.enforce(request)  # refused before being counted: the address pays, as in the API
        raise
    values = {}
    try:
        limits.enforce(request, session, config.rate_limit)
        values = validate_params(capability.params, params, {}, {})
        data = run_handler(config, capability, values, session, origin)
    except CapabilityError as error:
        _audit(request, session, capability, values, error.status, f"refused:{error.code}")
        raise
    _audit(request, session, capability, values, 200, "allowed")
    return data


def session_for(config, capability, token):
    """The caller's live session: required when the capability says so, else used when valid."""
    if capability.requires_session:
        return authenticate(token, config.session.create_endpoint)
    if not token:
        return None
    try:
        return authenticate(token, config.session.create_endpoint)
    except CapabilityError:
        return None


def _audit(request, session, capability, values, status, policy_result):
    if session is None:
        return
    try:
        record_event(session, capability=capability.name, method=request.method, path=request.path,
                     params=values, response_status=status, policy_result=policy_result)
    except Exception:
        # The call has already happened; losing its record is logged, never turned into an error.
        logger.exception("Could not record the audit event of %s", capability.name)


