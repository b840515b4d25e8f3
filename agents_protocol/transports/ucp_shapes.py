"""UCP's shapes (protocol version 2026-01-11) mapped to the checkout core and back.

Requests become `checkout.services.Changes` (line items are the cart's lines: item id and
quantity, whose rules are cart.add's and cart.update's); a CheckoutSession becomes UCP's
checkout and order objects, money in minor units. Nothing here decides a price or a state.
"""
import re
from decimal import Decimal

from django.utils.dateparse import parse_datetime

from agents_protocol.checkout import services
from agents_protocol.checkout.models import CheckoutLink, CheckoutSession
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.formats import iso_utc
from agents_protocol.core.money import in_minor_units
from agents_protocol.core.provider import PaymentInstrument
from agents_protocol.documents.ucp_profile import (
    ORDER,
    VERSION,
    absolute,
    declared_capabilities,
    payment_handler_registry,
    payment_handlers,
)

STATUSES = {
    CheckoutSession.Status.OPEN: "incomplete",
    CheckoutSession.Status.READY: "ready_for_complete",
    CheckoutSession.Status.ESCALATED: "requires_escalation",
    CheckoutSession.Status.COMPLETING: "complete_in_progress",
    CheckoutSession.Status.COMPLETED: "completed",
    CheckoutSession.Status.CANCELED: "canceled",
}
# checkout.json's ucp_request: what a create and an update must send (an update replaces the checkout).
REQUIRED_ON_CREATE = ("line_items",)
REQUIRED_ON_UPDATE = ("id", "line_items")
CHECKOUT_FIELDS = {"id", "line_items", "currency", "buyer", "payment", "fulfillment", "discounts", "platform",
                   "context", "ucp"}
COMPLETE_FIELDS = {"payment_data", "risk_signals", "ap2"}
METHOD_ID, GROUP_ID = "shipping", "shipping_group"
CURRENCY = re.compile(r"[A-Za-z]{3}")
BUYER_TEXTS = ("first_name", "last_name", "full_name", "email", "phone_number")


def invalid(message, path="$"):
    return CapabilityError(400, "invalid_params", message, fields={path: message})


# Requests ------------------------------------------------------------------------------------------

def checkout_changes(body, *, creating):
    """The Changes a create or update body asks for (400 `invalid` naming the first wrong field)."""
    unknown = sorted(set(body) - CHECKOUT_FIELDS)
    if unknown:
        raise invalid(f"Unknown field {unknown[0]!r}; a checkout takes {', '.join(sorted(CHECKOUT_FIELDS))}.",
                      f"$.{unknown[0]}")
    for field in REQUIRED_ON_CREATE if creating else REQUIRED_ON_UPDATE:
        if field not in body:
            raise invalid(f"{field} is required.", f"$.{field}")
    # checkout.json omits currency from requests (the shop's currency is the checkout's); one sent
    # must be the shop's (checkout/services.py set_lines).
    currency = body.get("currency")
    if currency is not None and not (isinstance(currency, str) and CURRENCY.fullmatch(currency)):
        raise invalid("currency must be an ISO 4217 code, e.g. USD.", "$.currency")
    buyer = body.get("buyer")
    if buyer is not None:
        check_buyer(buyer)
    if "payment" in body and not isinstance(body["payment"], dict):
        raise invalid("payment must be an object.", "$.payment")
    return services.Changes(
        lines=line_changes(body["line_items"]) if "line_items" in body else None,
        currency=currency,
        buyer=buyer,
        discount_codes=discount_codes(body.get("discounts")),
        **fulfillment_changes(body.get("fulfillment")),
    )


def check_buyer(buyer):
    """The buyer as UCP's schema has it (its names, email and phone as text, the buyer_consent
    extension's consent as booleans), so that what is echoed back is valid too."""
    if not isinstance(buyer, dict):
        raise invalid("buyer must be an object.", "$.buyer")
    for name in BUYER_TEXTS:
        if name in buyer and not isinstance(buyer[name], str):
            raise invalid(f"buyer.{name} must be a string.", f"$.buyer.{name}")
    consent = buyer.get("consent")
    if consent is not None and not (isinstance(consent, dict) and all(isinstance(v, bool) for v in consent.values())):
        raise invalid("buyer.consent must be an object of booleans.", "$.buyer.consent")


def line_changes(line_items):
    if not isinstance(line_items, list) or not line_items:
        raise invalid("line_items must be a non-empty array.", "$.line_items")
    changes = []
    for index, line in enumerate(line_items):
        path = f"$.line_items[{index}]"
        item = line.get("item") if isinstance(line, dict) else None
        item_id = item.get("id") if isinstance(item, dict) else None
        if not isinstance(item_id, str) or not item_id:
            raise invalid("Each line item has an item with an id.", f"{path}.item.id")
        quantity = line.get("quantity")
        if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
            raise invalid("quantity must be a whole number of at least 1.", f"{path}.quantity")
        changes.append((item_id, quantity))
    return changes


def discount_codes(discounts):
    if discounts is None:
        return None
    codes = discounts.get("codes") if isinstance(discounts, dict) else None
    if codes is None and isinstance(discounts, dict):
        return None
    if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes):
        raise invalid("discounts.codes must be an array of strings.", "$.discounts.codes")
    return codes


def fulfillment_changes(fulfillment):
    """The shipping method's destinations and choices ({} when the request names no fulfillment)."""
    if fulfillment is None:
        return {}
    methods = fulfillment.get("methods") if isinstance(fulfillment, dict) else None
    if not isinstance(methods, list) or not all(isinstance(method, dict) for method in methods):
        raise invalid("fulfillment.methods must be an array of objects.", "$.fulfillment.methods")
    if not methods:
        return {}
    method = methods[0]
    if method.get("type", "shipping") != "shipping":
        raise invalid("This shop fulfills by shipping only.", "$.fulfillment.methods[0].type")
    destinations = method.get("destinations")
    if destinations is not None and not (isinstance(destinations, list)
                                         and all(isinstance(d, dict) for d in destinations)):
        raise invalid("destinations must be an array of addresses.", "$.fulfillment.methods[0].destinations")
    selected = method.get("selected_destination_id")
    if selected is not None and not isinstance(selected, str):
        raise invalid("selected_destination_id must be a string.", "$.fulfillment.methods[0].selected_destination_id")
    groups = method.get("groups")
    option = None
    if groups is not None:
        if not isinstance(groups, list) or not all(isinstance(group, dict) for group in groups):
            raise invalid("groups must be an array of objects.", "$.fulfillment.methods[0].groups")
        option = (groups[0].get("selected_option_id") if groups else None) or ""
        if not isinstance(option, str):
            raise invalid("selected_option_id must be a string.", "$.fulfillment.methods[0].groups[0]")
    return {"fulfillment_requested": True, "destinations": destinations, "selected_destination_id": selected,
            "selected_option_id": option}


def payment_instrument(body):
    """The instrument a complete body pays with (`payment_data`), as the provider reads it."""
    unknown = sorted(set(body) - COMPLETE_FIELDS)
    if unknown:
        raise invalid(f"Unknown field {unknown[0]!r}; complete takes payment_data, risk_signals and ap2.",
                      f"$.{unknown[0]}")
    data = body.get("payment_data")
    if not isinstance(data, dict):
        raise invalid("payment_data (the payment instrument) is required.", "$.payment_data")
    handler_id, credential = data.get("handler_id"), data.get("credential")
    if not isinstance(handler_id, str) or not handler_id:
        raise invalid("payment_data.handler_id is required.", "$.payment_data.handler_id")
    if not isinstance(credential, dict):
        raise invalid("payment_data.credential must be an object.", "$.payment_data.credential")
    for name in ("risk_signals", "ap2"):
        if name in body and not isinstance(body[name], dict):
            raise invalid(f"{name} must be an object.", f"$.{name}")
    return PaymentInstrument(id=str(data.get("id", "")), handler_id=handler_id, credential=credential)


# Answers ------------------------------------------------------------------------------------------

def minor(amount, currency):
    return in_minor_units(amount, currency)


def amounts(subtotal, total, currency):
    return [{"type": "subtotal", "amount": minor(subtotal, currency)},
            {"type": "total", "amount": minor(total, currency)}]


def line_items(checkout):
    currency = checkout.currency
    return [{
        "id": line["item_id"],
        "item": {"id": line["item_id"], "title": line["title"], "price": minor(line["unit_price"], currency)},
        "quantity": line["quantity"],
        "totals": amounts(Decimal(line["unit_price"]) * line["quantity"],
                          Decimal(line["unit_price"]) * line["quantity"], currency),
    } for line in checkout.lines]


def totals(checkout):
    currency = checkout.currency
    answer = [{"type": "subtotal", "amount": minor(services.subtotal(checkout), currency)}]
    if services.selected_option(checkout):
        answer.append({"type": "fulfillment", "amount": minor(services.shipping(checkout), currency)})
    if checkout.applied_discounts:
        answer.append({"type": "discount", "amount": minor(services.discount_total(checkout), currency)})
    answer.append({"type": "total", "amount": max(0, minor(services.total(checkout), currency))})
    return answer


def checkout_object(checkout, origin):
    answer = {
        "ucp": {"version": VERSION, "capabilities": [{"name": name, "version": VERSION}
                                                     for name in declared_capabilities()],
                "payment_handlers": payment_handler_registry(origin)},
        "id": checkout.public_id,
        "status": STATUSES[checkout.status],
        "currency": checkout.currency,
        "line_items": line_items(checkout),
        "totals": totals(checkout),
        "links": checkout_links(origin),
        "payment": {"handlers": payment_handlers(origin), "instruments": []},
    }
    if not checkout.is_final:
        answer["expires_at"] = iso_utc(checkout.agent_session.expires_at)
    if checkout.buyer is not None:
        answer["buyer"] = checkout.buyer
    if checkout.continue_url:
        answer["continue_url"] = checkout.continue_url
    messages = checkout_messages(checkout)
    if messages:
        answer["messages"] = messages
    if checkout.order_key:
        answer["order"] = {"id": checkout.order_key, "permalink_url": order_url(origin, checkout)}
    if services.offers_shipping() and (checkout.fulfillment_requested or checkout.destinations):
        answer["fulfillment"] = {"methods": [shipping_method(checkout)]}
    if services.offers_discounts():
        answer["discounts"] = {"codes": checkout.discount_codes,
                               "applied": [applied_discount(a, checkout.currency) for a in checkout.applied_discounts]}
    return answer


def applied_discount(applied, currency):
    """UCP's applied discount: its code, or `automatic` for one the shop gave without a code."""
    return {**({"code": applied["code"]} if applied["code"] else {"automatic": True}), "title": applied["title"],
            "amount": minor(applied["amount"], currency)}


def checkout_links(origin):
    """The shop's pages admin lists for every checkout (UCP: businesses SHOULD give the relevant ones)."""
    return [{"type": link.type, "url": absolute(origin, link.url), **({"title": link.title} if link.title else {})}
            for link in CheckoutLink.objects.all()]


def checkout_messages(checkout):
    """What the platform may fix itself; an escalated checkout says all with its status and continue_url."""
    if checkout.status == CheckoutSession.Status.OPEN and checkout.lines:
        return [{"type": "error", "code": "checkout_incomplete", "path": "$.fulfillment", "severity": "recoverable",
                 "content": services.FULFILLMENT_MISSING}]
    return []


def shipping_method(checkout):
    line_ids = [line["item_id"] for line in checkout.lines]
    method = {"id": METHOD_ID, "type": "shipping", "line_item_ids": line_ids}
    if checkout.destinations:
        method["destinations"] = checkout.destinations
    if checkout.selected_destination_id:
        method["selected_destination_id"] = checkout.selected_destination_id
        group = {"id": GROUP_ID, "line_item_ids": line_ids, "options": [
            {"id": option["id"], "title": option["title"],
             "totals": amounts(option["amount"], option["amount"], checkout.currency)}
            for option in checkout.shipping_options]}
        if checkout.selected_option_id:
            group["selected_option_id"] = checkout.selected_option_id
        method["groups"] = [group]
    return method


def order_url(origin, checkout):
    return f"{origin}/orders/{checkout.order_key}"


def order_object(checkout, origin):
    shipped = any(event.get("type") == "shipped" for event in checkout.fulfillment_events)
    lines = [{**line, "quantity": {"total": line["quantity"], "fulfilled": line["quantity"] if shipped else 0},
              "status": "fulfilled" if shipped else "processing"} for line in line_items(checkout)]
    answer = {
        "ucp": {"version": VERSION, "capabilities": [{"name": ORDER, "version": VERSION}]},
        "id": checkout.order_key,
        "checkout_id": checkout.public_id,
        "permalink_url": order_url(origin, checkout),
        "line_items": lines,
        "fulfillment": {"expectations": expectations(checkout), "events": checkout.fulfillment_events},
        "totals": totals(checkout),
    }
    if checkout.adjustments:
        answer["adjustments"] = checkout.adjustments
    return answer


def expectations(checkout):
    option, destination = services.selected_option(checkout), services.selected_destination(checkout)
    if option is None or destination is None:
        return []
    return [{"id": f"exp_{checkout.order_key}", "method_type": "shipping",
             "line_items": [{"id": line["item_id"], "quantity": line["quantity"]} for line in checkout.lines],
             "destination": {key: value for key, value in destination.items() if key != "id"},
             "description": option["title"]}]


# What a platform records on an order: fulfillment events and adjustments -----------------------------

ADJUSTMENT_STATUSES = ("pending", "completed", "failed")


def unprocessable(message, path):
    return CapabilityError(422, "invalid_order_update", message, fields={path: message})


def order_records(body):
    """(fulfillment events, adjustments) of an order update; 422 naming the first that is not
    the spec's shape. The rest of the order is the shop's and is not read."""
    fulfillment = body.get("fulfillment", {})
    if not isinstance(fulfillment, dict):
        raise unprocessable("fulfillment must be an object.", "$.fulfillment")
    events = records(fulfillment.get("events"), "$.fulfillment.events", event_problem)
    adjustments = records(body.get("adjustments"), "$.adjustments", adjustment_problem)
    return events, adjustments


def records(value, path, problem_of):
    if value is None:
        return None
    if not isinstance(value, list):
        raise unprocessable("Must be an array.", path)
    for index, record in enumerate(value):
        problem = problem_of(record) if isinstance(record, dict) else "Must be an object."
        if problem:
            raise unprocessable(problem, f"{path}[{index}]")
    return value


def event_problem(event):
    return (text_problem(event, "id") or text_problem(event, "type") or time_problem(event)
            or line_items_problem(event.get("line_items"), required=True))


def adjustment_problem(adjustment):
    if adjustment.get("status") not in ADJUSTMENT_STATUSES:
        return f"status must be one of {', '.join(ADJUSTMENT_STATUSES)}."
    amount = adjustment.get("amount")
    if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int)):
        return "amount must be an integer in minor units."
    return (text_problem(adjustment, "id") or text_problem(adjustment, "type") or time_problem(adjustment)
            or line_items_problem(adjustment.get("line_items"), required=False))


def text_problem(record, name):
    value = record.get(name)
    return None if isinstance(value, str) and value else f"{name} must be a non-empty string."


def time_problem(record):
    value = record.get("occurred_at")
    try:
        moment = parse_datetime(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    return None if moment is not None and moment.tzinfo is not None else "occurred_at must be a date-time with its offset."


def line_items_problem(lines, *, required):
    if lines is None and not required:
        return None
    if not isinstance(lines, list) or not all(
            isinstance(line, dict) and isinstance(line.get("id"), str) and isinstance(line.get("quantity"), int)
            and not isinstance(line.get("quantity"), bool) and line["quantity"] >= 1 for line in lines):
        return "line_items must be an array of {id, quantity ≥ 1}."
    return None
