"""Run one capability's handler in-process: the part of a call that knows no transport.

The HTTP pipeline (agents_protocol.http) authenticates, counts, validates and audits
around it; captured examples (examples.py) call `invoke_capability` alone.
"""
from agents_protocol.core.capabilities import CapabilityCall, declared_output, handler_for
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.outputs import published
from agents_protocol.core.provider import CallContext, get_provider
from agents_protocol.core.schema import validate_params


def invoke_capability(config, capability, params, session, origin):
    """The data `capability` returns for `params` (a dict of name → JSON value) in `session`."""
    return run_handler(config, capability, validate_params(capability.params, params, {}, {}), session, origin)


def run_handler(config, capability, values, session, origin, append_audit_event=None):
    """The handler's data, as its declared output says it (core/outputs.py; the built-in handlers
    write theirs inside their transaction); `append_audit_event` is what the context's
    record_change() calls."""
    handler = handler_for(capability.name)
    if handler is None:
        raise CapabilityError(501, "not_implemented", f"{capability.name} has no handler on this site yet.")
    call = CapabilityCall(
        name=capability.name,
        params=values,
        context=CallContext(session=session, origin=origin, append_audit_event=append_audit_event),
        provider=get_provider(),
        config=config,
    )
    data = handler(call)
    output = declared_output(capability.name)
    if output is None or getattr(handler, "answers_as_declared", False):
        return data
    return published(data, output, origin, capability.name)


def find_capability(config, name):
    """The enabled capability called `name`, or None."""
    return next((c for c in config.enabled_capabilities if c.name == name), None)
