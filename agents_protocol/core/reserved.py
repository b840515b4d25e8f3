"""What the app itself serves and names, which configuration may not claim.

The documents' and transports' paths (the middleware and agents_protocol.urls serve them), and
the names the router and the audit chain give the session and audit endpoints' calls. Admin
and `agents_config import` refuse an endpoint that would match one of these paths, and a
capability named like one of these calls (core/models.py).
"""
AGENTS_TXT_PATH = "/.well-known/agents.txt"
AGENTS_JSON_PATH = "/.well-known/agents.json"
LLMS_TXT_PATH = "/llms.txt"
PACTSPEC_PATH = "/.well-known/pactspec.json"
AGENT_CARD_PATH = "/.well-known/agent-card.json"
OPENAPI_PATH = "/.well-known/agents/openapi.json"
# Outside /.well-known/agents/api, which the agent API claims whole.
A2A_RPC_PATH = "/.well-known/agents/a2a"
PACTSPEC_INVOKE_PATH = "/.well-known/agents/pactspec"
INSPECTOR_PATH = "/.well-known/agents/inspect/"  # agents_protocol.urls routes it to inspector/views.py
MCP_ENDPOINTS = ("/mcp", "/.well-known/agents/mcp")
ACP_FEED_PATH = "/acp/feed/"  # the ACP product feed's files (documents/acp_feed.py)

# Paths an endpoint template may not match: one of each kind the app serves.
SERVED_PATHS = (
    AGENTS_TXT_PATH, AGENTS_JSON_PATH, PACTSPEC_PATH, AGENT_CARD_PATH, OPENAPI_PATH, A2A_RPC_PATH,
    PACTSPEC_INVOKE_PATH, f"{PACTSPEC_INVOKE_PATH}/skill", f"{PACTSPEC_INVOKE_PATH}/skill/tests.json",
    f"{INSPECTOR_PATH}secret", f"{INSPECTOR_PATH}secret/state", f"{INSPECTOR_PATH}secret/artifact",
    *MCP_ENDPOINTS,
)
# Prefixes of whole path spaces the app serves.
SERVED_PREFIXES = (f"{PACTSPEC_INVOKE_PATH}/", INSPECTOR_PATH, f"{A2A_RPC_PATH}/", ACP_FEED_PATH)

# The calls of the session and audit endpoints, as the router and the audit chain name them.
SESSION_CREATE, SESSION_DELETE, SESSION_END, AUDIT = "session.create", "session.delete", "session.end", "audit"
CALL_NAMES = (SESSION_CREATE, SESSION_DELETE, SESSION_END, AUDIT)
