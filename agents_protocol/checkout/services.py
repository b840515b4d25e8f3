"""Checkout sessions made, changed, completed and canceled: the shop prices everything.

The lines are the agent session's cart, changed through the cart capabilities (so their
parameter rules, stock checks and prices are the ones every transport gets) and read back
from cart.view. Shipping options, discounts and payment are the provider's (core/provider.py).
`continue_url` is the page the `checkout` capability hands the human. A transport maps its
protocol's request to `Changes` and the CheckoutSession back to its protocol's shape.
"""
import secrets
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from agents_protocol.checkout.models import CheckoutSession, PaymentHandler
from agents_protocol.checkout.signals import ucp_order_event
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.invocation import invoke_capability
from agents_protocol.core.money import as_money
from agents_protocol.core.provider import CallContext, Payment, get_provider

POSTAL_FIELDS = ("full_name", "first_name", "last_name", "street_address", "extended_address",
                 "address_locality", "address_region", "postal_code", "address_country", "phone_number")
FULFILLMENT_MISSING = "Fulfillment address and option must be selected before completion."


@dataclass(frozen=True)
class Changes:
    """What a request asks to change; None leaves a part as it is."""

    lines: list | None = None  # [(item_id, quantity)]
    currency: str | None = None
    buyer: dict | None = None
    fulfillment_requested: bool = False
    destinations: list | None = None  # [{"id"?, …POSTAL_FIELDS}]
    selected_destination_id: str | None = None
    selected_option_id: str | None = None
    discount_codes: list | None = None


@dataclass(frozen=True)
class Caller:
    """Who changes a checkout: its agent session, the site's configuration and origin."""

    config: object
    session: object
    origin: str

    def context(self):
        return CallContext(session=self.session, origin=self.origin)


def offers_shipping():
    return get_provider().offers_shipping


def offers_discounts():
    return get_provider().offers_discounts


def open_checkout(caller, changes, platform_profile_url="", platform=None, platform_interventions=()):
    """A new checkout session in `caller.session` (made for it), with `changes` applied; `platform`
    the principal it belongs to, if any, and the interventions it said it can handle."""
    with transaction.atomic():
        checkout = CheckoutSession(public_id=f"cs_{secrets.token_urlsafe(18)}", agent_session=caller.session,
                                   currency=changes.currency or "", platform_profile_url=platform_profile_url,
                                   platform=platform, platform_interventions=list(platform_interventions))
        apply_changes(caller, checkout, changes)
        checkout.save()
    return checkout


def update_checkout(caller, checkout, changes):
    refuse_if_final(checkout, "update")
    if checkout.order_id:
        raise CapabilityError(409, "checkout_closed", "This checkout was handed to the buyer's checkout page; it can "
                                                      "no longer change. Cancel it and start a new one.")
    with transaction.atomic():
        apply_changes(caller, checkout, changes)
        checkout.save()
    return checkout


def cancel_checkout(checkout):
    refuse_if_final(checkout, "cancel")
    checkout.status = CheckoutSession.Status.CANCELED
    checkout.save(update_fields=["status", "updated_at"])
    return checkout


def refuse_if_final(checkout, action):
    """A completed or canceled checkout changes no more, nor one whose agent session is over
    (its deadline is the checkout's expires_at); reading it still works."""
    if checkout.is_final:
        raise CapabilityError(409, "checkout_closed", f"Cannot {action} a checkout that is {checkout.status}.")
    session = checkout.agent_session
    if session.ended_at is not None or session.expires_at <= timezone.now():
        raise CapabilityError(409, "checkout_closed", f"Cannot {action} a checkout that expired; start a new one.")


def apply_changes(caller, checkout, changes):
    if changes.buyer is not None:
        checkout.buyer = changes.buyer
    if changes.lines is not None:
        set_lines(caller, checkout, changes.lines, changes.currency)
    if changes.discount_codes is not None:
        checkout.discount_codes = list(dict.fromkeys(changes.discount_codes))
    price(caller, checkout)  # first: a shop's shipping charges may depend on the discounts applied
    if offers_shipping():
        apply_fulfillment(caller, checkout, changes)
    checkout.status = ready_status(checkout)


def ready_status(checkout):
    if checkout.lines and (not offers_shipping() or checkout.selected_option_id):
        return CheckoutSession.Status.READY
    return CheckoutSession.Status.OPEN


# Lines: the agent session's cart ------------------------------------------------------------------

def set_lines(caller, checkout, wanted, currency):
    """Make the cart hold `wanted` [(item_id, quantity)], then read its lines as the shop prices them
    (cart.view's lines have the declared shape, core/outputs.py CART_LINE: item_id, name,
    unit_price, quantity, available …)."""
    quantities = {}
    for item_id, quantity in wanted:
        quantities[item_id] = quantities.get(item_id, 0) + quantity
    held = {line["item_id"]: line for line in capability_call(caller, "cart.view", {}).get("items", [])}
    for item_id in held.keys() - quantities.keys():
        capability_call(caller, "cart.remove", {"item_id": item_id})
    for item_id, quantity in quantities.items():
        line = held.get(item_id)
        if line is None:
            capability_call(caller, "cart.add", {"item_id": item_id, "quantity": quantity})
        elif line["quantity"] != quantity:
            require_stock(line, quantity)
            capability_call(caller, "cart.update", {"item_id": item_id, "quantity": quantity})
    cart = capability_call(caller, "cart.view", {})
    shop_currency = cart.get("currency") or currency
    if currency and shop_currency and currency.upper() != shop_currency.upper():
        raise CapabilityError(400, "currency_mismatch", f"This shop sells in {shop_currency}, not {currency}.")
    checkout.currency = shop_currency or ""
    checkout.lines = [{"item_id": line["item_id"], "title": line["name"], "unit_price": str(line["unit_price"]),
                       "quantity": line["quantity"]} for line in cart.get("items", [])]


def require_stock(line, quantity):
    available = line.get("available")
    if isinstance(available, int) and quantity > available:
        raise CapabilityError(400, "insufficient_stock",
                              f"Insufficient stock for item {line['item_id']}: {available} available.")


def capability_call(caller, name, params):
    """The capability's answer (the cart's, checkout's, order.status), with the shop's refusals
    worded for a checkout."""
    capability = next((c for c in caller.config.capabilities if c.name == name), None)
    if capability is None:
        raise CapabilityError(501, "not_implemented", f"This shop has no {name}, which checkout sessions use.")
    try:
        return invoke_capability(caller.config, capability, params, caller.session, caller.origin)
    except CapabilityError as error:
        raise cart_refusal(error, params.get("item_id")) from error


def cart_refusal(error, item_id):
    """What the checkout answers for the cart's refusal: the request's item, named as UCP's
    platforms expect ("Insufficient stock", "not found"), is the request's problem (400)."""
    if error.code == "insufficient_stock":
        return CapabilityError(400, "insufficient_stock", f"Insufficient stock for item {item_id}: {error.message}")
    if error.code in ("unknown_item", "not_found", "item_not_in_cart"):
        return CapabilityError(400, "invalid_params", f"Item {item_id} not found: {error.message}")
    if error.status in (400, 404):
        return CapabilityError(400, "invalid_params", error.message, fields=error.fields)
    return error


# Fulfillment: shipping destinations and options ----------------------------------------------------

def apply_fulfillment(caller, checkout, changes):
    context = caller.context()
    if changes.fulfillment_requested:
        checkout.fulfillment_requested = True
        checkout.selected_destination_id = changes.selected_destination_id or ""
    if changes.destinations is not None:
        checkout.destinations = [kept_destination(context, checkout, address) for address in changes.destinations]
    elif changes.fulfillment_requested and not checkout.destinations:
        checkout.destinations = known_addresses(context, checkout) or None
    if changes.selected_option_id is not None:
        checkout.selected_option_id = changes.selected_option_id
    destination = selected_destination(checkout)
    if checkout.selected_destination_id and destination is None:
        raise CapabilityError(400, "invalid_params",
                              f"No destination {checkout.selected_destination_id!r} in this checkout's fulfillment.")
    checkout.shipping_options = [] if destination is None else [
        {"id": option.id, "title": option.title, "amount": str(as_money(option.amount, checkout.currency))}
        for option in get_provider().shipping_options(
            context, destination=destination, lines=checkout.lines, subtotal=subtotal(checkout),
            currency=checkout.currency)
    ]
    if checkout.selected_option_id not in {option["id"] for option in checkout.shipping_options}:
        checkout.selected_option_id = ""


def kept_destination(context, checkout, address):
    """`address` with only postal fields and an id: the one it came with, else the shop's (which
    keeps the buyer's addresses for their next checkout), else a new one."""
    kept = {name: address[name] for name in POSTAL_FIELDS if isinstance(address.get(name), str)}
    email = buyer_email(checkout)
    shop_id = get_provider().remember_address(context, email=email, address=kept) if email else None
    sent_id = address.get("id")
    kept["id"] = sent_id if isinstance(sent_id, str) and sent_id else shop_id or f"dest_{secrets.token_urlsafe(9)}"
    return kept


def known_addresses(context, checkout):
    email = buyer_email(checkout)
    return get_provider().buyer_addresses(context, email=email) if email else []


def buyer_email(checkout):
    email = (checkout.buyer or {}).get("email")
    return email if isinstance(email, str) and email else None


def selected_destination(checkout):
    return next((d for d in checkout.destinations or () if d.get("id") == checkout.selected_destination_id), None)


def selected_option(checkout):
    return next((o for o in checkout.shipping_options if o["id"] == checkout.selected_option_id), None)


# Totals ---------------------------------------------------------------------------------------------

def subtotal(checkout):
    return sum((Decimal(line["unit_price"]) * line["quantity"] for line in checkout.lines), Decimal(0))


def shipping(checkout):
    option = selected_option(checkout)
    return Decimal(option["amount"]) if option else Decimal(0)


def price(caller, checkout):
    """The discounts the shop gives for the checkout's codes and without one; asked with no codes
    too, so a shop that keeps codes on its cart (Oscar's vouchers) lets go of those taken off."""
    if not (offers_discounts() and checkout.lines):
        checkout.applied_discounts = []
        return
    accepted = get_provider().discounts(caller.context(), codes=list(checkout.discount_codes),
                                        subtotal=subtotal(checkout), currency=checkout.currency)
    checkout.applied_discounts = [{"code": d.code, "title": d.title, "amount": str(as_money(d.amount, checkout.currency))}
                                  for d in accepted]


def discount_total(checkout):
    return sum((Decimal(d["amount"]) for d in checkout.applied_discounts), Decimal(0))


def total(checkout):
    return subtotal(checkout) + shipping(checkout) - discount_total(checkout)


# Completion ------------------------------------------------------------------------------------------

def complete_checkout(caller, checkout, instrument):
    """Pay with `instrument` (a PaymentInstrument): completed, handed to the human (escalated) or
    waiting for the buyer's authentication (challenged, its challenge kept), all in one
    transaction; a declined payment (402) leaves the checkout and the shop as they were."""
    refuse_if_final(checkout, "complete")
    if not checkout.lines:
        raise CapabilityError(400, "checkout_incomplete", "The checkout has no line items.")
    if offers_shipping() and not (selected_destination(checkout) and selected_option(checkout)):
        raise CapabilityError(400, "checkout_incomplete", FULFILLMENT_MISSING)
    if not PaymentHandler.objects.filter(handler_id=instrument.handler_id).exists():
        raise CapabilityError(400, "invalid_params", f"Unsupported payment handler {instrument.handler_id!r}; the "
                                                     "profile lists the accepted ones.")
    with transaction.atomic():
        if not checkout.order_id:
            hand_off(caller, checkout)
        payment = get_provider().pay(caller.context(), order_id=checkout.order_id, instrument=instrument,
                                     amount=total(checkout), currency=checkout.currency, buyer=checkout.buyer)
        if payment.outcome == Payment.DECLINED:
            raise CapabilityError(402, "payment_declined", payment.message or "The payment was declined.")
        checkout.payment_challenge = payment.challenge if payment.outcome == Payment.AUTHENTICATE else None
        if payment.outcome == Payment.AUTHENTICATE:
            checkout.status = CheckoutSession.Status.CHALLENGED
            checkout.save()
        elif payment.outcome == Payment.APPROVED:
            checkout.status, checkout.completed_at = CheckoutSession.Status.COMPLETED, timezone.now()
            checkout.payment_reference = payment.reference
            checkout.order_key = f"ord_{secrets.token_urlsafe(18)}"
            checkout.save()
            ucp_order_event.send(sender=CheckoutSession, checkout=checkout, event="order_created")
        else:
            checkout.status = CheckoutSession.Status.ESCALATED
            checkout.save()
    return checkout


def follow_handoff(caller, checkout):
    """An escalated checkout as the human left it on the checkout page: completed once the shop's
    order is paid (order.status "confirmed", as ShopProvider.paid_sessions reads it), canceled
    once it is cancelled or expired. Each change happens once, however many reads see it."""
    if checkout.status != CheckoutSession.Status.ESCALATED:
        return checkout
    try:
        status = capability_call(caller, "order.status", {"order_id": checkout.order_id}).get("status")
    except CapabilityError:
        return checkout  # the order cannot be read now: the checkout stays as it was
    if status == "confirmed":
        with transaction.atomic():
            if settle(checkout, CheckoutSession.Status.COMPLETED, completed_at=timezone.now(),
                      order_key=f"ord_{secrets.token_urlsafe(18)}"):
                ucp_order_event.send(sender=CheckoutSession, checkout=checkout, event="order_created")
    elif status in ("cancelled", "expired"):
        settle(checkout, CheckoutSession.Status.CANCELED)
    return checkout


def settle(checkout, status, **fields):
    """Move an escalated checkout to `status` with `fields`, unless another call did first:
    whether this one did (the checkout is refreshed either way)."""
    moved = CheckoutSession.objects.filter(pk=checkout.pk, status=CheckoutSession.Status.ESCALATED).update(
        status=status, updated_at=timezone.now(), **fields)
    checkout.refresh_from_db()
    return bool(moved)


def hand_off(caller, checkout):
    """The `checkout` capability's handoff: the order the agent gets and the human's page."""
    answer = capability_call(caller, "checkout", {})
    checkout.order_id, checkout.continue_url = str(answer["order_id"]), answer["checkout_url"]


def add_fulfillment_event(checkout, kind):
    """Record a fulfillment event of the order (e.g. "shipped") and tell the platform (order_<kind>)."""
    with transaction.atomic():
        event = {"id": f"evt_{secrets.token_urlsafe(9)}", "type": kind, "occurred_at": timezone.now().isoformat()}
        checkout.fulfillment_events = [*checkout.fulfillment_events, event]
        checkout.save(update_fields=["fulfillment_events", "updated_at"])
        ucp_order_event.send(sender=CheckoutSession, checkout=checkout, event=f"order_{kind}")
    return event


def record_on_order(checkout, *, events=None, adjustments=None):
    """Keep what the platform records on a completed order: its fulfillment events and
    adjustments (None leaves a list as it is)."""
    fields = ["updated_at"]
    if events is not None:
        checkout.fulfillment_events, fields = events, [*fields, "fulfillment_events"]
    if adjustments is not None:
        checkout.adjustments, fields = adjustments, [*fields, "adjustments"]
    checkout.save(update_fields=fields)
    return checkout
