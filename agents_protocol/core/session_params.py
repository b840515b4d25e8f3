"""The optional body of a session create request: who the agent is and why it came."""
from agents_protocol.core.config import ParamSpec
from agents_protocol.core.errors import bad_request

AGENT_FIELDS = {"agent_name": 200, "agent_version": 100, "purpose": 500}

SESSION_CREATE_PARAMS = tuple(
    ParamSpec(name=name, type="string", description=f"At most {length} characters")
    for name, length in AGENT_FIELDS.items()
)


def check_agent_lengths(values):
    too_long = {
        name: f"Must be at most {AGENT_FIELDS[name]} characters."
        for name, value in values.items()
        if len(value) > AGENT_FIELDS[name]
    }
    if too_long:
        raise bad_request("Some session fields are too long.", "invalid_params", fields=too_long)
    return values
