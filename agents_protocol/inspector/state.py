"""What the inspector shows of one session, read fresh on every poll.

The calls are the session's audit events (parameters as the trail keeps them, sensitive ones
hashed) with the sentence each refused call was told; the cart and the orders are what the
shop's provider answers cart.view and order.status for that session; the headroom is the
session's rate-limit window, read without counting a call.
"""
import logging
import math

from django.utils import timezone

from agents_protocol.audit import policy
from agents_protocol.core.capabilities import CapabilityCall, handler_for
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.formats import iso_utc
from agents_protocol.core.models import AuditEvent
from agents_protocol.core.money import minor_units
from agents_protocol.core.provider import CallContext, get_provider
from agents_protocol.http import limits
from agents_protocol.http.sessions import end_session, session_for_inspector

logger = logging.getLogger(__name__)


def inspected_session(secret):
    """The session of an inspector secret, sealed first if it expired untouched; or None."""
    session = session_for_inspector(secret)
    if session is not None and session.ended_at is None and session.expires_at <= timezone.now():
        end_session(session, "expired", ended_at=session.expires_at)
    return session


def session_state(request, session, config, origin, after_seq):
    """The page's data: the session, its calls after `after_seq`, headroom, cart and orders."""
    usage = limits.headroom(request, session, config.rate_limit) if session.ended_at is None else None
    return {
        "session": session_summary(session),
        "calls": calls_after(session, after_seq),
        "rate_limit": usage and {"limit": usage.limit, "remaining": usage.remaining, "reset_at": usage.reset_at},
        "cart": provider_answer(config, session, origin, "cart.view"),
        "orders": provider_answer(config, session, origin, "order.status"),
    }


def session_summary(session):
    return {
        "session_id": session.public_id,
        "agent_name": session.agent_name,
        "agent_version": session.agent_version,
        "purpose": session.purpose,
        "created_at": iso_utc(session.created_at),
        "expires_at": iso_utc(session.expires_at),
        "ended_at": iso_utc(session.ended_at),
        "end_reason": session.end_reason,
        "live": session.ended_at is None,
        "audited": session.audited,
    }


def calls_after(session, after_seq):
    events = AuditEvent.objects.filter(session=session, seq__gt=after_seq).order_by("seq").values(
        "seq", "timestamp", "capability", "method", "path", "params", "response_status", "policy_result", "hint")
    return [call_of(event) for event in events]


def call_of(event):
    result = event["policy_result"]
    return {
        "seq": event["seq"],
        "timestamp": event["timestamp"],
        "capability": event["capability"],
        "method": event["method"],
        "path": event["path"],
        "params": event["params"],
        "status": event["response_status"],
        "error_code": policy.refusal_code(result),
        "outcome": result,
        "hint": event["hint"],
    }


def provider_answer(config, session, origin, capability):
    """{"data": …} as the capability's handler answers it in `session`, or {"unavailable", "code"}
    when the shop refuses it (501 for a provider without the method)."""
    handler = handler_for(capability)
    if handler is None:
        return {"unavailable": f"{capability} has no handler on this site.", "code": "not_implemented"}
    call = CapabilityCall(name=capability, params={}, context=CallContext(session=session, origin=origin),
                          provider=get_provider(), config=config)
    try:
        data = handler(call)
        return {"data": data, "decimals": currency_decimals(data)}
    except CapabilityError as refusal:
        return {"unavailable": refusal.message, "code": refusal.code}
    except Exception:  # one failing panel (the cart, the orders) leaves the calls and the rest shown
        logger.exception("The inspector could not read %s of session %s", capability, session.public_id)
        return {"unavailable": f"The shop could not answer {capability} just now.", "code": "internal_error"}


def currency_decimals(data):
    """{currency: its decimals} of every currency an answer names, for the page to write amounts as
    the API does (JSON numbers lose 40.00's zeros on the way to the page)."""
    decimals, pending = {}, [data]
    while pending:
        current = pending.pop()
        if isinstance(current, dict):
            if isinstance(current.get("currency"), str):
                decimals[current["currency"]] = minor_units(current["currency"])
            pending.extend(current.values())
        elif isinstance(current, list):
            pending.extend(current)
    return decimals


def seconds_until_expiry(session):
    return max(1, math.ceil((session.expires_at - timezone.now()).total_seconds()))
