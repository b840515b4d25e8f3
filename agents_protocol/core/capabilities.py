"""The registry of capability handlers, by capability name.

A handler receives a `CapabilityCall` and returns JSON-ready data (or raises
CapabilityError). Built-in handlers live in handlers.py; a shop adds its own:

    from agents_protocol.core.capabilities import register

    @register("reserve")
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


def register(name, handler=None):
    """Register `handler` for capability `name`; usable as a decorator. The last registration wins."""
    if handler is None:
        return lambda function: register(name, function)
    _handlers[name] = handler
    return handler


def unregister(name):
    _handlers.pop(name, None)


def handler_for(name):
    return _handlers.get(name)


def registered_names():
    return set(_handlers)
