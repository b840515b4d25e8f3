"""Checkouts that become the shop's orders later: the agent's order_id stays the same throughout.

Many shops create the order only when the human pays, so a provider's checkout may hand off a
`reference` of its own (a basket, a draft order) instead of an order number. The app then gives
the agent an order_id of its own (`ord_…`) and keeps the pair. When the human has paid, the shop
says which order the handoff became:

    from agents_protocol.core.handoffs import resolve_handoff

    resolve_handoff(reference, order.number)   # e.g. in a receiver of the shop's "order placed"

and from then on order.status answers from that order (the provider's order_status, called with
the shop's number), under the agent's order_id. The reference must reach the place where the
order is placed: keep it in the human's Django session when they open the link, not only on
the basket, because a basket merged at login (a logged-in customer's own basket absorbing the
agent's) is not the basket the order comes from, while the session's data survives the login.
"""
import secrets

from django.db import transaction
from django.utils import timezone

from agents_protocol.core.formats import iso_utc
from agents_protocol.core.models import CheckoutHandoff

ORDER_ID_PREFIX = "ord_"


def agent_order_id(session, handoff):
    """The order_id the agent gets for the provider's `handoff`: the shop's order number when the
    provider gave one, else a new order_id of the app kept with the provider's reference."""
    if handoff.reference is None:
        return handoff.order_id
    return CheckoutHandoff.objects.create(
        session=session, order_id=f"{ORDER_ID_PREFIX}{secrets.token_urlsafe(12)}", reference=handoff.reference,
        created_at=timezone.now(), expires_at=handoff.expires_at,
    ).order_id


def resolve_handoff(reference, order_number):
    """Say that the human's checkout handed off as `reference` became the shop's order
    `order_number`. Returns how many handoffs it resolved (0 for an unknown reference); a
    handoff already resolved keeps its first order. Runs in the caller's transaction, if any."""
    with transaction.atomic():
        return CheckoutHandoff.objects.filter(reference=reference, resolved_at=None).update(
            order_number=str(order_number), resolved_at=timezone.now())


def session_handoff(session, order_id):
    """The session's handoff with this order_id, or None."""
    if session is None:
        return None
    return CheckoutHandoff.objects.filter(session=session, order_id=order_id).first()


def session_handoffs(session):
    return list(CheckoutHandoff.objects.filter(session=session)) if session is not None else []


def unresolved_status(handoff, now=None):
    """order.status of a handoff the shop has not resolved yet: pending until it expires."""
    expired = handoff.expires_at is not None and handoff.expires_at <= (now or timezone.now())
    return {
        "order_id": handoff.order_id,
        "status": "expired" if expired else "pending",
        "created": iso_utc(handoff.created_at),
        "expires_at": iso_utc(handoff.expires_at),
    }
