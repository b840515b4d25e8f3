"""JSON Schemas for what a capability takes and returns, shared by PactSpec, A2A, OpenAPI and MCP.

Inputs come from the configured parameter descriptors, with every rule the API enforces
(bounds, lengths, format) as the JSON Schema keywords core/schema.py compiles them to.
Outputs are what each capability's handler declares when it is registered (core/outputs.py,
core/capabilities.py), the schema every answer is written and checked by; a handler
registered without one returns whatever it returns.
"""
from agents_protocol.core.capabilities import declared_output
from agents_protocol.core.schema import param_json_schema

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
    declared = declared_output(capability.name)
    return declared or {"description": f"Data returned by this site's {capability.name} handler"}


def structured_output_schema(capability):
    """The declared output when it is an object, what MCP's outputSchema and structuredContent carry; else None."""
    declared = declared_output(capability.name)
    return declared if declared is not None and declared.get("type") == "object" else None


def success_envelope(data_schema):
    return {
        "type": "object",
        "required": ["ok", "data"],
        "properties": {"ok": {"const": True}, "data": data_schema},
    }
