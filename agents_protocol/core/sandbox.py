"""The sandbox: situations an agent's developer can ask for by the agent's name, to test how the
agent handles them, without touching the limits every other agent gets.

Off unless `AGENTS_PROTOCOL["SANDBOX"]` is a dict (a demo or staging shop sets it); then a
session whose `agent_name` contains

- `sandbox:rate-limit` is allowed `REQUESTS_PER_MINUTE` calls a minute (default 3), so its
  next calls get the 429 `rate_limited` every agent gets past the limit;
- `sandbox:short-session` lives `SESSION_TTL_SECONDS` (default 10), then answers 401
  `session_expired` like any expired session.

Both only ever lower what the configuration gives: a sandbox session is never allowed more
calls or a longer life than any other. The markers are case-insensitive, anywhere in the name
(MCP clients set it as clientInfo.name).
"""
from dataclasses import dataclass

from agents_protocol.core.conf import SANDBOX_DEFAULTS, app_settings

RATE_LIMIT_MARKER = "sandbox:rate-limit"
SHORT_SESSION_MARKER = "sandbox:short-session"


@dataclass(frozen=True)
class Sandbox:
    requests_per_minute: int
    session_ttl_seconds: int


def current_sandbox():
    """The Sandbox of the settings, or None when it is off."""
    configured = app_settings.SANDBOX
    if configured is None:
        return None
    values = {**SANDBOX_DEFAULTS, **configured}
    return Sandbox(values["REQUESTS_PER_MINUTE"], values["SESSION_TTL_SECONDS"])


def requests_per_minute(session, configured):
    """The limit for calls counted against `session` (None: an address): the configured one, or the
    sandbox's when the session asked for it and it is lower."""
    if session is None or not asks_for(session.agent_name, RATE_LIMIT_MARKER):
        return configured  # every call but the sandbox's own asks this: the name first, then the settings
    sandbox = current_sandbox()
    return configured if sandbox is None else min(configured, sandbox.requests_per_minute)


def session_ttl(agent_name, configured):
    """The lifetime, in seconds, of a session created with `agent_name`."""
    if not asks_for(agent_name, SHORT_SESSION_MARKER):
        return configured
    sandbox = current_sandbox()
    return configured if sandbox is None else min(configured, sandbox.session_ttl_seconds)


def asks_for(agent_name, marker):
    return marker in (agent_name or "").lower()
