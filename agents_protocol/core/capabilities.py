"""The registry of capability handlers and their outputs, by capability name.

A handler receives a `CapabilityCall` and returns JSON-ready data (or raises
CapabilityError). Its output is the JSON Schema of that data, declared once here: OpenAPI,
PactSpec and MCP's outputSchema publish it, and every answer is written and checked by it
(core/outputs.py). Built-in handlers live in handlers.py; a shop adds its own:

    from agents_protocol.core.capabilities import register

    @register("reserve", output={"type": "object", "required": ["reserved"],
                                 "properties": {"reserved": {"type": "string"}}})
    def reserve(call):
        return {"reserved": call.params["item_id"]}

then adds a `reserve` capability in admin, which routes it and publishes it.
"""
from dataclasses import dataclass
from typing import Any, Callable

from agents_protocol.core.provider import CallContext


@dataclass(frozen=True)
class CapabilityCall:
    name: str
    params: dict
    context: CallContext
    provider: Any
    config: Any


Handler = Callable[[CapabilityCall], Any]

_handlers: dict[str, Handler] = {}
_outputs: dict[str, dict] = {}


def register(name, handler=None, *, output=None):
    """Register `handler` for capability `name`, answering what the JSON Schema `output` declares
    (None: whatever it returns, undeclared); usable as a decorator. The last registration wins.
    An `output` that is no JSON Schema (2020-12, as OpenAPI 3.1 reads it) is refused here, at
    import, with jsonschema's SchemaError."""
    if handler is None:
        return lambda function: register(name, function, output=output)
    if output is not None:
        from jsonschema import Draft202012Validator  # here: a site without outputs of its own never needs it

        Draft202012Validator.check_schema(output)
    return register_checked(name, handler, output)


def register_checked(name, handler, output):
    """register() for an `output` already known to be a JSON Schema: the built-in handlers'
    (core/outputs.py), which tests/test_provider_answers.py checks, so that a process does not
    check them again at start-up (about 20 ms)."""
    if output is None:
        _outputs.pop(name, None)
    else:
        _outputs[name] = output
    _handlers[name] = handler
    return handler


def unregister(name):
    _handlers.pop(name, None)
    _outputs.pop(name, None)


def handler_for(name):
    return _handlers.get(name)


def declared_output(name):
    """The JSON Schema of what capability `name` answers, as registered; None when undeclared."""
    return _outputs.get(name)


def registered_names():
    return set(_handlers)
