"""From the agent's basket to Oscar's order: the checkout link, the human who opens it, and the
order Oscar places for it.

checkout hands the session's open basket off: the agent gets a single-use link and a stable
reference (its order_id), the session's next add starts a new basket. The human who opens the
link gets the basket's lines in their own Oscar basket, merged the way Oscar merges a guest's
basket at login, and goes on to Oscar's own checkout, as a guest or signed in. That basket is
remembered (and followed when a guest signs in during checkout, which merges it into the
customer's basket), so the order Oscar places for it resolves the handoff.
"""
import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.signing import BadSignature, Signer
from django.db import transaction
from django.utils import timezone
from oscar.core.loading import get_model

from agents_protocol.contrib.oscar import baskets
from agents_protocol.contrib.oscar.conf import oscar_settings
from agents_protocol.contrib.oscar.models import AgentBasket
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.handoffs import resolve_handoff

Basket = get_model("basket", "Basket")


class LinkClosed(Exception):
    """The checkout link is unknown, used or expired; `reason` says which, for the human."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def token_hash(token):
    return hashlib.sha256(token.encode()).hexdigest()


def hand_off(session):
    """Close the session's open basket for the agent; returns (the link, the raw token)."""
    basket = baskets.lock_open_basket(session)
    if basket.is_empty:
        raise CapabilityError(409, "cart_empty", "The cart is empty; add at least one item before checking out.")
    for line in basket.all_lines():
        baskets.require_purchase_permitted(basket, line.product, line.quantity, 0)
    token = secrets.token_urlsafe(32)
    link = AgentBasket.objects.get(basket=basket)
    link.reference = f"oscar-basket-{basket.pk}"
    link.link_token_hash = token_hash(token)
    link.link_expires_at = timezone.now() + timedelta(seconds=oscar_settings.CHECKOUT_TTL_SECONDS)
    link.checkout_basket = basket
    link.save()
    return link, token


def open_link(token, request_basket):
    """The human opened the link: move the agent's lines into `request_basket` (the one Oscar's
    BasketMiddleware gave this request: the customer's, a guest's, or a new one)."""
    with transaction.atomic():
        link = AgentBasket.objects.select_for_update().filter(link_token_hash=token_hash(token)).first()
        if link is None:
            raise LinkClosed("This checkout link is not valid.")
        if link.link_opened_at is not None:
            raise LinkClosed("This checkout link has already been used.")
        if link.link_expires_at <= timezone.now():
            raise LinkClosed("This checkout link has expired; ask your agent for a new one.")
        if request_basket.id is None:
            request_basket.save()  # a guest without a basket yet: Oscar sets its cookie for it
        request_basket.merge(link.basket, add_quantities=False)
        link.link_opened_at = timezone.now()
        link.checkout_basket_id = request_basket.id
        link.save(update_fields=["link_opened_at", "checkout_basket"])
        return link


def follow_login(request, user):
    """A guest signed in: Oscar merges their cookie basket into the customer's open basket on
    the next request, so the handoffs checked out from it now follow that basket."""
    cookie = request.COOKIES.get(settings.OSCAR_BASKET_COOKIE_OPEN)
    if not cookie:
        return
    try:
        guest_basket_id = Signer().unsign(cookie)
    except BadSignature:
        return
    links = AgentBasket.objects.filter(checkout_basket_id=guest_basket_id, order=None)
    if links.exists():
        customer_basket = Basket.open.filter(owner=user).first() or Basket.open.create(owner=user)
        links.update(checkout_basket=customer_basket)


def resolve(order):
    """Oscar placed `order`: the handoffs checked out from its basket became it; tell the app."""
    if order.basket_id is None:
        return
    with transaction.atomic():
        for link in AgentBasket.objects.select_for_update().filter(checkout_basket_id=order.basket_id, order=None):
            link.order = order
            link.save(update_fields=["order"])
            resolve_handoff(link.reference, order.number)
