"""The A2A Agent Card: the protocol's v1.0 card, and the registry variant of seed 004.

One skill per enabled capability, invoked through the A2A JSON-RPC binding at
A2A_RPC_PATH: `SendMessage` with a data part `{"skill": "<capability name>", "input": {…}}`
answers a message whose data part is the capability's `data`. Skills that need a
session name the `session` security scheme: the bearer token from the session endpoint.
"""
import json

from agents_protocol.documents.interop import (
    A2A_RPC_PATH,
    JSON_MEDIA_TYPE,
    LLMS_TXT_PATH,
    document_version,
    site_base,
    skill_description,
    skill_tags,
    skill_title,
)

PROTOCOL_VERSION = "1.0"
SESSION_SCHEME = "session"
MODES = [JSON_MEDIA_TYPE]
PLACEHOLDERS = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}


def build_agent_card(config, origin, examples):
    """The A2A v1.0 Agent Card (ProtoJSON field names, as a2a-sdk parses it)."""
    base = site_base(config, origin)
    return {
        "name": config.site.name,
        "description": _description(config),
        "supportedInterfaces": [
            {"url": f"{base}{A2A_RPC_PATH}", "protocolBinding": "JSONRPC", "protocolVersion": PROTOCOL_VERSION}
        ],
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
        f"{intro}Call a skill with SendMessage and one data part "
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
        "description": skill_description(capability),
        "tags": skill_tags(capability),
        "examples": [json.dumps({"skill": capability.name, "input": skill_input}, ensure_ascii=False)],
        "inputModes": MODES,
        "outputModes": MODES,
    }


def _input_template(capability):
    """Required parameters only, with an enum value, a neutral value, or `<name>` for text."""
    return {p.name: _placeholder(p) for p in capability.params if p.required}


def _placeholder(param):
    if param.enum:
        return param.enum[0]
    return PLACEHOLDERS.get(param.type, f"<{param.name}>")
