"""The A2A Agent Card: the protocol's v1.0 card, and the registry variant of seed 004.

One skill per enabled capability, invoked through the A2A JSON-RPC binding at
A2A_RPC_PATH: `SendMessage` with a data part `{"skill": "<capability name>", "input": {…}}`
answers a message whose data part is the capability's `data`. Skills that need a
session name the `session` security scheme: the bearer token from the session endpoint.

An A2A skill has no field for an input or output schema, so each skill's description ends with
its inputs and every rule the API enforces on them, compiled from the same configuration
(core/schema.py): "Input: q (string, required, 1 to 200 characters); page (integer, default 1,
1 to 10000)." Then the fields of the output its handler declares (core/outputs.py): "Output:
results (array, required); total (integer, required); …". Its example input, when no real call
was captured, keeps to those rules.
"""
import json

from agents_protocol.core.capabilities import declared_output
from agents_protocol.core.codec import JSON_MEDIA_TYPE
from agents_protocol.core.schema import NUMERIC_TYPES, param_phrase
from agents_protocol.documents.interop import (
    A2A_RPC_PATH,
    LLMS_TXT_PATH,
    MCP_PROTOCOL_VERSION,
    document_version,
    mcp_url,
    site_base,
    skill_description,
    skill_tags,
    skill_title,
)

PROTOCOL_VERSION = "1.0"
SESSION_SCHEME = "session"
MODES = [JSON_MEDIA_TYPE]
PLACEHOLDERS = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}
FORMAT_PLACEHOLDERS = {"email": "agent@example.com", "uri": "https://example.com/", "date-time": "2025-01-31T09:30:00Z"}


def build_agent_card(config, origin, examples):
    """The A2A v1.0 Agent Card (ProtoJSON field names, as a2a-sdk parses it)."""
    base = site_base(config, origin)
    return {
        "name": config.site.name,
        "description": _description(config),
        "supportedInterfaces": _interfaces(config, origin, base),
        "provider": {"organization": config.site.name, "url": base},
        "version": document_version(config),
        "documentationUrl": _documentation(config, base),
        "capabilities": {"streaming": False, "pushNotifications": False, "extendedAgentCard": False},
        "securitySchemes": {
            SESSION_SCHEME: {
                "httpAuthSecurityScheme": {
                    "scheme": "Bearer",
                    "description": f"The session_token from POST {base}{config.session.create_endpoint}",
                }
            }
        },
        "defaultInputModes": MODES,
        "defaultOutputModes": MODES,
        "skills": [_a2a_skill(c, examples.get(c.name)) for c in config.enabled_capabilities],
    }


def _interfaces(config, origin, base):
    """A2A's JSON-RPC binding first; then, when it is on, the MCP server, whose tools are these skills
    (protocolBinding is an open string in A2A; clients skip a binding they do not speak)."""
    interfaces = [{"url": f"{base}{A2A_RPC_PATH}", "protocolBinding": "JSONRPC", "protocolVersion": PROTOCOL_VERSION}]
    mcp = mcp_url(config, origin)
    if mcp:
        interfaces.append({"url": mcp, "protocolBinding": "MCP", "protocolVersion": MCP_PROTOCOL_VERSION})
    return interfaces


def build_registry_card(config, origin, examples):
    """Seed 004's registry schema: securitySchemes as a list, transport in `interface`."""
    base = site_base(config, origin)
    return {
        "name": config.site.name,
        "description": _description(config),
        "url": f"{base}{A2A_RPC_PATH}",
        "version": document_version(config),
        "provider": {"organization": config.site.name, "url": base},
        "capabilities": {
            "streaming": False,
            "pushNotifications": False,
            "stateTransitionHistory": False,
            "supportsAuthenticatedExtendedCard": False,
        },
        "securitySchemes": [{"type": "apiKey", "location": "header", "name": "Authorization"}],
        "skills": [_skill(c, examples.get(c.name)) for c in config.enabled_capabilities],
        "interface": {"preferredTransport": "jsonrpc", "defaultInputModes": MODES, "defaultOutputModes": MODES},
        "documentationUrl": _documentation(config, base),
    }


def _description(config):
    intro = f"{config.site.description.rstrip('.')}. " if config.site.description else ""
    return (
        f"{intro}Call a skill with SendMessage (header A2A-Version: 1.0) and one data part "
        '{"skill": "<skill id>", "input": {<parameters>}}; the answer is a message with one data part. '
        f"Skills tagged `session` need Authorization: Bearer <session_token> from POST "
        f"{config.session.create_endpoint}."
    )


def _documentation(config, base):
    return config.site.docs_url or f"{base}{LLMS_TXT_PATH}"


def _a2a_skill(capability, example):
    skill = _skill(capability, example)
    if capability.requires_session:
        skill["securityRequirements"] = [{"schemes": {SESSION_SCHEME: {"list": []}}}]
    return skill


def _skill(capability, example):
    skill_input = example["input"] if example else _input_template(capability)
    return {
        "id": capability.name,
        "name": skill_title(capability),
        "description": _skill_description(capability),
        "tags": skill_tags(capability),
        "examples": [json.dumps({"skill": capability.name, "input": skill_input}, ensure_ascii=False)],
        "inputModes": MODES,
        "outputModes": MODES,
    }


def _skill_description(capability):
    text = skill_description(capability)
    if capability.params:
        text = f"{text.rstrip('.')}. Input: {'; '.join(_input_rules(p) for p in capability.params)}."
    output = declared_output(capability.name) or {}
    fields = output.get("properties", {})
    if fields:
        required = output.get("required", ())
        text = f"{text.rstrip('.')}. Output: {'; '.join(_output_field(n, fields[n], n in required) for n in fields)}."
    return text


def _output_field(name, rule, required):
    """results (array, required)"""
    described = [rule.get("type"), "required" if required else None]
    return f"{name} ({', '.join(word for word in described if word)})" if any(described) else name


def _input_rules(param):
    """q (string, required, 1 to 200 characters)"""
    rules = [param.type, "required" if param.required else None]
    if param.default is not None:
        rules.append(f"default {json.dumps(param.default, ensure_ascii=False)}")
    if param.enum is not None:
        rules.append("one of " + ", ".join(str(value) for value in param.enum))
    rules.append(param_phrase(param) or None)
    return f"{param.name} ({', '.join(rule for rule in rules if rule)})"


def _input_template(capability):
    """Required parameters only, with an enum value, a neutral value, or `<name>` for text."""
    return {p.name: _placeholder(p) for p in capability.params if p.required}


def _placeholder(param):
    """A value the API accepts: the default, an enum value, or one that keeps to the bounds and format."""
    if param.default is not None:
        return param.default
    if param.enum:
        return param.enum[0]
    if param.type in NUMERIC_TYPES:
        value = 1 if param.minimum is None else param.minimum
        return value if param.maximum is None else min(value, param.maximum)
    if param.type == "string" and param.format:
        return FORMAT_PLACEHOLDERS[param.format]
    if param.type == "string":
        text = f"<{param.name}>".ljust(param.min_length or 0, "x")
        return text[:param.max_length] if param.max_length is not None else text
    return PLACEHOLDERS.get(param.type, f"<{param.name}>")
