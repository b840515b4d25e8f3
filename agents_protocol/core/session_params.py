"""The optional body of a session create request: who the agent is and why it came.

Its rules are declared once, as ParamSpecs: validate_params enforces the lengths ("Must be at
most 200 characters.") and OpenAPI publishes them as maxLength.
"""
from agents_protocol.core.config import ParamSpec

AGENT_FIELDS = {"agent_name": 200, "agent_version": 100, "purpose": 500}
DESCRIPTIONS = {
    "agent_name": "Your agent's name, shown to staff and in the audit trail",
    "agent_version": "Your agent's version",
    "purpose": "What you came to do",
}

SESSION_CREATE_PARAMS = tuple(
    ParamSpec(name=name, type="string", description=DESCRIPTIONS[name], max_length=length)
    for name, length in AGENT_FIELDS.items()
)
