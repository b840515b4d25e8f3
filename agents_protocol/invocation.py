"""Call one capability in-process: session → parameters → handler → provider.

The same steps the agent API takes for a configured endpoint, for callers that receive
the parameters as one JSON object (PactSpec skills, A2A messages, captured examples).
Returns the handler's data or raises CapabilityError, exactly as the API would answer.
"""
from .capabilities import CapabilityCall, handler_for
from .api.params import validate_params
from .errors import CapabilityError
from .provider import CallContext, get_provider
from .sessions import authenticate


def invoke_capability(config, capability, params, token, origin):
    """The data `capability` returns for `params` (a dict of name → JSON value)."""
    session = session_for(config, capability, token)
    values = validate_params(capability.params, params, {}, {})
    handler = handler_for(capability.name)
    if handler is None:
        raise CapabilityError(501, "not_implemented", f"{capability.name} has no handler on this site yet.")
    call = CapabilityCall(
        name=capability.name,
        params=values,
        context=CallContext(session=session, origin=origin),
        provider=get_provider(),
        config=config,
    )
    return handler(call)


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


def find_capability(config, name):
    """The enabled capability called `name`, or None."""
    return next((c for c in config.enabled_capabilities if c.name == name), None)
