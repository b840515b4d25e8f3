"""The demo's checkout scenarios an agent asks for by its session's agent name
(docs/agent-testing.md), next to the app's own sandbox markers (agents_protocol/core/sandbox.py).

`sandbox:expired-checkout`: the checkout link expires at once, so the agent's developer can see
what an expired link does: the human page answers 410 with its explanation and `order.status`
answers `expired`.
"""
from django.conf import settings

EXPIRED_CHECKOUT_MARKER = "sandbox:expired-checkout"


def checkout_ttl_seconds(agent_session):
    """How long the checkout link of this session's next checkout lives."""
    if EXPIRED_CHECKOUT_MARKER in (agent_session.agent_name or "").lower():
        return 0
    return settings.CHECKOUT_TTL_SECONDS
