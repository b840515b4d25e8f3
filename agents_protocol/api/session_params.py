"""The optional body of a session create request: who the agent is and why it came."""
from ..config import ParamSpec
from ..errors import bad_request
from ..sessions import AGENT_FIELDS

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
