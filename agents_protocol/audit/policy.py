"""The words of an event's `policy_result`: `allow` or `deny`, with the rule that matched, as the
protocol's audit.md has it ("`allow` or `deny`, with the rule that matched").

    allow                  the call was answered
    deny:<code>            refused, with the error code the agent received (deny:rate_limited)
    allow:replayed         the answer kept for an Idempotency-Key, answered again
    allow:ended:<reason>   the session.end event (deleted, expired, idle, rotated)
"""
ALLOW = "allow"
DENY_PREFIX = "deny:"
REPLAYED = "allow:replayed"
# Trails recorded before these words (until 2026-11-25) wrote refused:<code>, allowed, replayed, ended:<reason>.
FORMER_DENY_PREFIX = "refused:"


def denied(code):
    return f"{DENY_PREFIX}{code}"


def ended(reason):
    return f"allow:ended:{reason}"


def refusal_code(policy_result):
    """The error code of a denied call's policy_result, else None."""
    for prefix in (DENY_PREFIX, FORMER_DENY_PREFIX):
        if policy_result.startswith(prefix):
            return policy_result[len(prefix):]
    return None
