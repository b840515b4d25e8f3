"""JSON Schemas for what a capability takes and returns, shared by PactSpec, A2A and OpenAPI.

Inputs come from the configured parameter descriptors, with every rule the API enforces
(bounds, lengths, format) as the JSON Schema keywords core/schema.py compiles them to.
Outputs are what the protocol promises for the built-in capabilities (see core/handlers.py
and docs/api.md); a shop's items carry more fields than these schemas require, which they allow. A capability
with a shop's own handler returns whatever that handler returns.
"""
from agents_protocol.core.schema import param_json_schema

ITEM = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {
        "id": {"type": "string", "description": "Item ID, for detail and cart capabilities"},
        "name": {"type": "string"},
        "price": {"type": "number", "description": "Price set by the shop, with its currency's decimals"},
        "currency": {"type": "string"},
        "url": {"type": "string", "format": "uri", "description": "The item's page, for humans"},
    },
}
VARIANT = {
    "type": "object",
    "required": ["id", "attributes"],
    "properties": {
        "id": {"type": "string", "description": "The variant's own item ID: what cart.add takes"},
        "name": {"type": "string"},
        "attributes": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": 'What sets this variant apart, e.g. {"size": "large"}',
        },
        "price": {"type": "number", "description": "The variant's price, with its currency's decimals"},
        "currency": {"type": "string"},
        "stock": {"type": "integer", "minimum": 0},
        "in_stock": {"type": "boolean"},
    },
}
DETAIL = {
    **ITEM,
    "properties": {
        **ITEM["properties"],
        "variants": {
            "type": "array",
            "items": VARIANT,
            "description": "When present, the item is sold only as one of these: give cart.add a variant's id",
        },
        "variant_of": {"type": "string", "description": "For a variant: the ID of the item it is a variant of"},
    },
}
NOTICES = {
    "type": "array", "items": {"type": "string"},
    "description": "When the shop has something to tell, e.g. a price that changed since the agent last saw the cart",
}
COUNTS = {"total": {"type": "integer", "minimum": 0}, "page": {"type": "integer"}, "limit": {"type": "integer"}}
CART = {
    "type": "object",
    "required": ["items", "subtotal", "currency", "cart_size"],
    "properties": {
        "items": {"type": "array", "items": {"type": "object"}},
        "subtotal": {"type": "number"},
        "currency": {"type": "string"},
        "cart_size": {"type": "integer", "minimum": 0, "description": "Number of lines"},
        "notices": NOTICES,
    },
}
CART_LINE_CHANGE = {
    "type": "object",
    "required": ["item_id", "quantity", "cart_size", "cart"],
    "properties": {
        "item_id": {"type": "string"},
        "quantity": {"type": "integer", "minimum": 0, "description": "The line's quantity now"},
        "cart_size": {"type": "integer", "minimum": 0},
        "cart": CART,
        "notices": NOTICES,
    },
}
HANDOFF = {
    "type": "object",
    "required": ["checkout_url", "human_handoff", "expires_at", "message"],
    "properties": {
        "checkout_url": {"type": "string", "format": "uri", "description": "For the human; do not follow it"},
        "human_handoff": {"const": True},
        "expires_at": {"type": "string", "format": "date-time"},
        "order_id": {"type": "string"},
        "message": {"type": "string"},
        "notices": NOTICES,
    },
}
ORDER_PROPERTIES = {
    "order_id": {"type": "string", "description": "The id checkout answered"},
    "status": {"type": "string", "description": "pending, confirmed, declined, expired or cancelled"},
}
ORDER_STATUS = {
    "type": "object",
    "description": "The session's orders, newest first; with order_id, that one order",
    "properties": {
        "orders": {"type": "array", "items": {"type": "object", "required": ["order_id", "status"],
                                              "properties": ORDER_PROPERTIES}},
        **ORDER_PROPERTIES,
    },
    "anyOf": [{"required": ["orders"]}, {"required": ["order_id", "status"]}],
}
BUILTIN_OUTPUTS = {
    "search": {
        "type": "object",
        "required": ["results", "total", "page", "limit"],
        "properties": {"results": {"type": "array", "items": ITEM}, **COUNTS},
    },
    "browse": {
        "type": "object",
        "required": ["items", "total", "page", "limit"],
        "properties": {"items": {"type": "array", "items": ITEM}, **COUNTS},
    },
    "detail": DETAIL,
    "cart.add": CART_LINE_CHANGE,
    "cart.view": CART,
    "cart.update": CART_LINE_CHANGE,
    "cart.remove": CART_LINE_CHANGE,
    "checkout": HANDOFF,
    "order.status": ORDER_STATUS,
    "contact": {
        "type": "object",
        "description": "The shop's acknowledgement",
        "properties": {"sent": {"type": "boolean", "description": "true once the message was sent to the shop"}},
    },
}

ERROR = {
    "type": "object",
    "required": ["ok", "error", "code"],
    "properties": {
        "ok": {"const": False},
        "error": {"type": "string", "minLength": 1, "description": "A sentence saying what to do"},
        "code": {"type": "string", "description": "Stable machine-readable code, e.g. invalid_params"},
        "fields": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Per-parameter problems"},
    },
}


def param_schema(param):
    """Every rule of the parameter as JSON Schema (compiled once per configuration, core/schema.py)."""
    return param_json_schema(param)


def object_schema(params):
    """An object with one property per parameter; unknown properties are ignored by the API."""
    schema = {"type": "object", "properties": {p.name: param_schema(p) for p in params}}
    required = [p.name for p in params if p.required]
    if required:
        schema["required"] = required
    return schema


def input_schema(capability):
    return object_schema(capability.params)


def output_schema(capability):
    return BUILTIN_OUTPUTS.get(capability.name, {"description": f"Data returned by this site's {capability.name} handler"})


def success_envelope(data_schema):
    return {
        "type": "object",
        "required": ["ok", "data"],
        "properties": {"ok": {"const": True}, "data": data_schema},
    }
