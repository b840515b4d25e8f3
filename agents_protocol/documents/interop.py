"""What the interop documents share: where each one lives, the site's base URL, names."""
import re

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from agents_protocol.core.reserved import (  # noqa: F401 (where each document and transport lives, for its users)
    A2A_RPC_PATH,
    AGENT_CARD_PATH,
    AGENTS_JSON_PATH,
    AGENTS_TXT_PATH,
    LLMS_TXT_PATH,
    OPENAPI_PATH,
    PACTSPEC_INVOKE_PATH,
    PACTSPEC_PATH,
)

# The MCP revision transports/mcp.py serves: the newest with sessions (initialize and Mcp-Session-Id),
# mcp_types' LATEST_HANDSHAKE_VERSION (tests/test_interop_mcp.py holds them equal). Written out: the
# documents are built without importing mcp_types, which costs a process about 0.2 s.
MCP_PROTOCOL_VERSION = "2025-11-25"


def site_base(config, origin):
    """The canonical site URL, or the origin the request arrived on."""
    return config.site.url or origin


def document_version(config):
    """Semantic version of what the documents describe: it moves with every configuration change."""
    return f"1.0.{config.revision}"


def slug(text, fallback):
    """Lowercase letters, digits and single hyphens (PactSpec ids, URN parts)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or fallback


def skill_title(capability):
    """A human-readable name for a capability: cart.add → Cart add."""
    return re.sub(r"[._]+", " ", capability.name).capitalize()


def skill_description(capability):
    return capability.description or f"The {capability.name} capability."


def own_limit_phrase(capability):
    """The capability's own limit in words, or "" when it has only the site's."""
    if not capability.calls_per_hour:
        return ""
    return f"At most {capability.calls_per_hour} calls an hour from one client address (then 429 rate_limited)."


def skill_tags(capability):
    """The name's first part (cart.add → cart), read-only or write, session, human-handoff."""
    tags = [capability.name.split(".")[0], "read-only" if capability.method == "GET" else "write"]
    if capability.requires_session:
        tags.append("session")
    if capability.human_handoff:
        tags.append("human-handoff")
    return tags


def is_email(value):
    try:
        validate_email(value)
    except ValidationError:
        return False
    return True


def mcp_url(config, origin):
    """Where the MCP server answers, or None when it is turned off."""
    return f"{site_base(config, origin)}{config.mcp.endpoint}" if config.mcp.enabled else None
