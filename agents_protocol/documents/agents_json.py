"""agents.json, exactly in the shape of seed 000 (no keys the canonical schema forbids).

A parameter there may only carry type, required, default, description, enum and items, so
its other rules (bounds, lengths, format) are stated in its description, in words compiled
from the same rules the API enforces: "Search query (1 to 200 characters)".
"""
from agents_protocol.core.schema import param_description

SCHEMA_VERSION = "0.1.0"


def build_agents_json(config, origin, public_key=None):
    """`public_key`: base64 DER SPKI of the audit signing key, published when audit is on."""
    document = {
        "schema_version": SCHEMA_VERSION,
        "site": _site(config.site, origin),
        "capabilities": [_capability(c) for c in config.enabled_capabilities],
        "session": {
            "create": config.session.create_endpoint,
            "delete": config.session.delete_endpoint,
            "ttl_seconds": config.session.ttl_seconds,
        },
        "rate_limit": {
            "requests_per_minute": config.rate_limit.requests_per_minute,
            "max_sessions": config.rate_limit.max_sessions,
        },
        "audit": _audit(config.audit, public_key),
        "flows": [
            {"name": f.name, "description": f.description, "steps": list(f.steps)}
            for f in config.flows
        ],
    }
    if config.site.docs_url:
        document["docs_url"] = config.site.docs_url
    return document


def _site(site, origin):
    entry = {"name": site.name, "url": site.url or origin}
    if site.description:
        entry["description"] = site.description
    if site.contact:
        entry["contact"] = site.contact
    return entry


def _capability(capability):
    entry = {"name": capability.name}
    if capability.description:
        entry["description"] = capability.description
    entry["endpoint"] = capability.endpoint
    entry["method"] = capability.method
    if capability.params:
        entry["params"] = {p.name: _param(p) for p in capability.params}
    entry["requires_session"] = capability.requires_session
    entry["human_handoff"] = capability.human_handoff
    return entry


def _param(param):
    entry = {"type": param.type, "required": param.required}
    description = param_description(param)
    if description:
        entry["description"] = description
    if param.default is not None:
        entry["default"] = param.default
    if param.enum is not None:
        entry["enum"] = list(param.enum)
    if param.items is not None:
        entry["items"] = param.items
    return entry


def _audit(audit, public_key):
    entry = {"enabled": audit.enabled, "endpoint": audit.endpoint}
    if audit.enabled and public_key:
        entry["public_key"] = public_key
    return entry
