"""/llms.txt in the shape of seed 001, readable by the `llms-txt` parser.

The llms.txt format allows no headings before its link sections (`## …`, which hold
only `- [title](url): notes` lines), so seed 001's sections become bold-labelled
blocks: quick start, capability table, sessions, auth, flows, limits, the sandbox (when
AGENTS_PROTOCOL["SANDBOX"] is on), the shop's own notes for agents (the site profile's
agent_notes, edited in admin), audit, errors. The link
sections point to agents.txt, agents.json, the docs and the other documents; the MCP server
(while it is on) is a block of its own, as its endpoint has no page to fetch. The limits block
states the request size limits of the app's settings (MAX_URL_BYTES, MAX_HEADER_BYTES,
MAX_BODY_BYTES) beside the configured rate limits.
"""
from agents_protocol.checkout.models import CommerceConfig
from agents_protocol.core import sandbox
from agents_protocol.core.conf import app_settings
from agents_protocol.core.schema import param_phrase
from agents_protocol.documents.acp_discovery import PATH as ACP_DISCOVERY_PATH
from agents_protocol.documents.interop import (
    AGENT_CARD_PATH,
    AGENTS_JSON_PATH,
    AGENTS_TXT_PATH,
    MCP_PROTOCOL_VERSION,
    OPENAPI_PATH,
    PACTSPEC_PATH,
    mcp_url,
    own_limit_phrase,
    site_base,
)

ERRORS = (
    ("400", "bad request: read `error` and `fields`, fix the parameters"),
    ("401", "session missing, invalid or expired: create a new session"),
    ("404", "unknown item or endpoint"),
    ("405", "wrong method: see the `Allow` header"),
    ("409", "a request with this `Idempotency-Key` is still running, or the cart was just checked out: "
     "wait `Retry-After` seconds (if given) and send it again"),
    ("411", "a body sent chunked: send it with its `Content-Length`"),
    ("412", "a document asked for with an `If-Match` naming another version: GET it again"),
    ("413", "body too large"),
    ("414", "path and query string too long (see **Limits**): send shorter parameters"),
    ("415", "send parameters as a JSON object with `Content-Type: application/json`"),
    ("422", "this `Idempotency-Key` was used for another request: use a new key for a new request"),
    ("425", "the audit trail of a live session: end the session first"),
    ("429", "rate limited: wait `Retry-After` seconds"),
    ("431", "header fields too large (see **Limits**): send only the session token, `Content-Type` and `Idempotency-Key`"),
    ("500", "server error: retry with backoff (at most 3 times), quote `X-Request-ID`"),
    ("501", "the capability is not implemented on this site: do not retry, use another"),
    ("503", "the shop's backend is down: wait `Retry-After` seconds"),
)
# Listed while the MCP server is on.
MCP_ERRORS = (
    ("403", "an MCP request from a browser page of another site: call from outside the browser"),
    ("406", "an MCP request that does not accept JSON: send `Accept: application/json, text/event-stream`"),
)


def build_llms_txt(config, origin):
    base = site_base(config, origin)
    blocks = [
        f"# {config.site.name}",
        f"> {_summary(config)}. Agents discover its capabilities in agents.txt and agents.json "
        "and call them over a typed HTTP API with sessions.",
        _quick_start(config, base),
        _capabilities(config),
        _sessions(config),
        _auth(),
    ]
    if config.flows:
        blocks.append(_flows(config))
    blocks.append(_limits(config))
    if sandbox.current_sandbox() is not None:
        blocks.append(_sandbox(sandbox.current_sandbox()))
    if config.site.agent_notes.strip():
        blocks.append(config.site.agent_notes.strip())
    if config.audit.enabled:
        blocks.append(_audit(config))
    if config.mcp.enabled:
        blocks.append(_mcp(config, base))
    blocks += [_errors(config), _links(config, base)]
    return "\n\n".join(blocks) + "\n"


def _summary(config):
    return (config.site.description or "A shop that AI agents can use").rstrip(".")


def _quick_start(config, base):
    return "\n".join([
        "**Quick start for agents**",
        "",
        f"1. Fetch `{base}{AGENTS_JSON_PATH}` to discover the capabilities.",
        "2. Each capability has a `name`, `endpoint`, `method` and `params`: GET sends them in the query "
        "string, other methods as a JSON object body. `:name` segments in an endpoint are path parameters.",
        f"3. For capabilities with Session `yes`, first `POST {config.session.create_endpoint}`.",
        "4. Send its `session_token` as `Authorization: Bearer <token>`.",
        '5. All responses: `{ "ok": true, "data": ... }` or `{ "ok": false, "error": "...", "code": "..." }`.',
    ])


def _capabilities(config):
    rows = [
        "**Capabilities**",
        "",
        "| Name | Method | Endpoint | Session | Description |",
        "|------|--------|----------|---------|-------------|",
    ]
    for capability in config.enabled_capabilities:
        session = "yes" if capability.requires_session else "no"
        rows.append(
            f"| {capability.name} | {capability.method} | {capability.endpoint} | {session} | "
            f"{_cell(_describe(capability))} |"
        )
    return "\n".join(rows)


def _describe(capability):
    text = capability.description
    if capability.params:
        names = ", ".join(_param(p) for p in capability.params)
        text = f"{text}; params: {names}" if text else f"Params: {names}"
    if capability.human_handoff:
        text += "; human handoff: give the returned URL to your human"
    limit = own_limit_phrase(capability)
    if limit:
        text += f"; {limit[0].lower()}{limit[1:].rstrip('.')}"
    return text


def _param(param):
    """`q` (1 to 200 characters), `page`? (1 to 10000): ? marks an optional one."""
    phrase = param_phrase(param)
    return f"`{param.name}`" + ("" if param.required else "?") + (f" ({phrase})" if phrase else "")


def _cell(text):
    return " ".join(text.split()).replace("|", "\\|")


def _sessions(config):
    session = config.session
    return "\n".join([
        "**Session lifecycle**",
        "",
        f"- `POST {session.create_endpoint}` → `{{ session_token, session_id, expires_at, ttl_seconds, capabilities, "
        "audit, inspect_url }` (`audit`: true when the session's calls are recorded); "
        "optional body `{ agent_name, agent_version, purpose }`.",
        "- `inspect_url` is for your developer, not for you to call: a page that shows this session's calls as they "
        "happen, what each refusal told you, the cart, the order and the rate-limit headroom, and once the session "
        "ends verifies its signed trail. Log it or show it to the human you work for; it is not the session token.",
        f"- `DELETE {session.delete_endpoint}` with the token → `{{ ended: true, session_id, ended_at, audit_url }}`.",
        f"- Sessions expire {session.ttl_seconds} seconds after creation; activity does not extend them.",
    ])


def _auth():
    return "\n".join([
        "**Auth**",
        "",
        "- `Authorization: Bearer <session_token>` (preferred)",
        "- `X-Session-Token: <session_token>` or `X-Agent-Session: <session_token>` (alternatives)",
        "- Only required for capabilities with Session `yes`.",
    ])


def _flows(config):
    lines = ["**Suggested flows**", ""]
    lines += [f"- `{f.name}`: {' → '.join(f.steps)}. {_cell(f.description)}".rstrip() for f in config.flows]
    return "\n".join(lines)


def _limits(config):
    limits = config.rate_limit
    return (
        f"**Limits**: {limits.requests_per_minute} requests per minute; "
        f"at most {limits.max_sessions} live sessions per client address. "
        f"Each request: path and query string at most {app_settings.MAX_URL_BYTES} bytes, percent-encoded "
        f"(else 414 `uri_too_long`); header fields at most {app_settings.MAX_HEADER_BYTES} bytes in all, "
        "each counted as `Name: value` and CRLF (else 431 `headers_too_large`); a JSON body at most "
        f"{app_settings.MAX_BODY_BYTES} bytes (else 413 `payload_too_large`)."
    )


def _sandbox(settings):
    return (
        "**Sandbox** (to test your error handling): a session whose `agent_name` contains "
        f"`{sandbox.RATE_LIMIT_MARKER}` is allowed {settings.requests_per_minute} requests per minute, so its next "
        f"call gets 429 `rate_limited`; one whose `agent_name` contains `{sandbox.SHORT_SESSION_MARKER}` expires "
        f"{settings.session_ttl_seconds} seconds after creation (then 401 `session_expired`). Other sessions keep "
        "the limits above."
    )


def _audit(config):
    return (
        "**Audit**: every call of a session is recorded in a hash chain, signed when the session ends; "
        f"then `GET {config.audit.endpoint}` with the session's token returns the artifact."
    )


def _mcp(config, base):
    """Said here rather than linked: a link section's URL is fetched as a document, and the MCP
    endpoint answers GET with 405 (it offers no stream)."""
    return (
        f"**MCP**: the capabilities are also Model Context Protocol tools at `{mcp_url(config, base)}` "
        f"(Streamable HTTP, protocol {MCP_PROTOCOL_VERSION}): POST `initialize`, then send the `Mcp-Session-Id` "
        "header it answers, your session's token, with every message."
    )


def _errors(config):
    errors = sorted(ERRORS + MCP_ERRORS) if config.mcp.enabled else ERRORS
    lines = ["**Error handling**", ""]
    lines += [f"- {status}: {meaning}" for status, meaning in errors]
    return "\n".join(lines)


def _links(config, base):
    docs = [
        f"- [agents.txt]({base}{AGENTS_TXT_PATH}): the plain-text discovery file",
        f"- [agents.json]({base}{AGENTS_JSON_PATH}): every capability with its endpoint, method, "
        "parameters and session needs",
        f"- [OpenAPI]({base}{OPENAPI_PATH}): the whole agent API as an OpenAPI 3.1 document",
    ]
    if config.site.docs_url:
        docs.append(f"- [Documentation]({config.site.docs_url}): the site's documentation for agents")
    optional = [
        f"- [PactSpec]({base}{PACTSPEC_PATH}): the capabilities as PactSpec v1 skills",
        f"- [A2A Agent Card]({base}{AGENT_CARD_PATH}): the capabilities as A2A skills over JSON-RPC",
    ]
    if CommerceConfig.load().acp_enabled:
        optional.append(f"- [ACP discovery]({base}{ACP_DISCOVERY_PATH}): checkout for agent platforms with an "
                        "API key (Agentic Commerce Protocol)")
    return "## Docs\n\n" + "\n".join(docs) + "\n\n## Optional\n\n" + "\n".join(optional)
