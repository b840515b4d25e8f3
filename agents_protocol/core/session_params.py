"""The optional body of a session create request: who the agent is and why it came.

Its rules are declared once, as ParamSpecs: validate_params enforces the lengths ("Must be at
most 200 characters.") and OpenAPI publishes them as maxLength.
"""
from agents_protocol.core.config import ParamSpec
from agents_protocol.core.errors import bad_request

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


def check_agent_lengths(values):
    """The values, refused if one is too long. validate_params(SESSION_CREATE_PARAMS, …) already
    refuses those with the same sentences; this stays for callers that check values themselves."""
    too_long = {
        name: f"Must be at most {AGENT_FIELDS[name]} characters."
        for name, value in values.items()
        if name in AGENT_FIELDS and len(value) > AGENT_FIELDS[name]
    }
    if too_long:
        raise bad_request("Some session fields are too long.", "invalid_params", fields=too_long)
    return values
