"""ACP's shapes (API version 2026-04-17) mapped to the checkout core and back.

A request body is checked against the request schema of the specification's own JSON schemas
(acp_schemas/; a superset of its OpenAPI document's, which lacks the `order_notes` its examples
send), so what the spec publishes is what is enforced: 400 `invalid` naming the first wrong
field as a JSONPath. It then becomes `checkout.services.Changes`
(an item listed twice is a quantity of two); a CheckoutSession becomes ACP's checkout session,
money in minor units. Nothing here decides a price or a state.
"""
import json
import math
from collections import Counter
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from agents_protocol.checkout import services
from agents_protocol.checkout.models import CheckoutSession
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.formats import iso_utc
from agents_protocol.core.provider import PaymentInstrument
from agents_protocol.documents.ucp_profile import payment_handlers
from agents_protocol.transports.ucp_shapes import checkout_links, minor

VERSION = "2026-04-17"
SCHEMA_FILE = Path(__file__).parent / "acp_schemas" / "schema.agentic_checkout.json"
STATUSES = {
    CheckoutSession.Status.OPEN: "not_ready_for_payment",
    CheckoutSession.Status.READY: "ready_for_payment",
    CheckoutSession.Status.ESCALATED: "requires_escalation",
    CheckoutSession.Status.CHALLENGED: "authentication_required",
    CheckoutSession.Status.COMPLETING: "in_progress",
    CheckoutSession.Status.COMPLETED: "completed",
    CheckoutSession.Status.CANCELED: "canceled",
}
DESTINATION_ID = "fulfillment_details"  # the one address ACP's fulfillment_details holds
# ACP's Address → the core's schema.org PostalAddress fields
ADDRESS_FIELDS = {"name": "full_name", "line_one": "street_address", "line_two": "extended_address",
                  "city": "address_locality", "state": "address_region", "postal_code": "postal_code",
                  "country": "address_country"}
# Test handlers (config "test_mode": true) are the only ones a test-mode platform is offered.
TEST_MODE_FLAG = "test_mode"
# The checkout links admin lists, in ACP's Link types (UCP's names where they differ); others are left out.
LINK_TYPES = {"terms_of_service": "terms_of_use", "refund_policy": "return_policy", **{
    kind: kind for kind in ("terms_of_use", "privacy_policy", "return_policy", "shipping_policy", "contact_us",
                            "about_us", "faq", "support")}}
MAX_SAFE_INTEGER = 2**53 - 1


@lru_cache(maxsize=8)
def schema_validator(schema_name):
    """A validator of the spec's schema `schema_name` (a name of its $defs). jsonschema is imported
    here and in validate(), on the first ACP request: it costs a process about 35 ms at start-up."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    bundle = json.loads(SCHEMA_FILE.read_text())
    registry = Registry().with_resource(bundle["$id"], Resource.from_contents(bundle, default_specification=DRAFT202012))
    return Draft202012Validator({"$ref": f"{bundle['$id']}#/$defs/{schema_name}"}, registry=registry,
                                format_checker=Draft202012Validator.FORMAT_CHECKER)


def json_path(parts):
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)


def invalid(message, param="$"):
    return CapabilityError(400, "invalid_params", message, fields={param: message})


def unsafe_number(value, parts=()):
    """The path of the first number in `value` that I-JSON (RFC 7493) cannot hold, else None: an
    integer past 2^53 - 1, or a number too large for a double (1e400). The audit trail's canonical
    JSON (RFC 8785), like many platforms' parsers, cannot hold either."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    elif isinstance(value, bool):
        return None
    elif isinstance(value, int):
        return parts if abs(value) > MAX_SAFE_INTEGER else None
    elif isinstance(value, (float, Decimal)):
        return None if math.isfinite(value) else parts
    else:
        return None
    return next((found for key, item in items if (found := unsafe_number(item, (*parts, key))) is not None), None)


def validate(body, schema_name):
    """400 `invalid` naming the first place `body` breaks the spec's `schema_name`."""
    unsafe = unsafe_number(body)
    if unsafe is not None:
        raise invalid(f"{json_path(unsafe)}: numbers are finite doubles, integers at most 2^53 - 1 in size.",
                      json_path(unsafe))
    from jsonschema.exceptions import best_match

    error = best_match(schema_validator(schema_name).iter_errors(body))
    if error is not None:
        param = json_path(error.absolute_path)
        raise invalid(f"{param}: {error.message[:300]}", param)


# Requests ------------------------------------------------------------------------------------------

def checkout_changes(body):
    """The Changes a create or update body (valid: `validate`) asks for."""
    lines = None
    if "line_items" in body:
        lines = list(Counter(item["id"] for item in body["line_items"]).items())
    codes = body["discounts"].get("codes") if "discounts" in body else body.get("coupons")
    return services.Changes(lines=lines, currency=body.get("currency"), buyer=body.get("buyer"),
                            discount_codes=codes, **fulfillment_changes(body))


def fulfillment_changes(body):
    changes = {}
    address = body.get("fulfillment_details", {}).get("address")
    if address is not None:
        destination = {ours: address[theirs] for theirs, ours in ADDRESS_FIELDS.items() if theirs in address}
        phone = body["fulfillment_details"].get("phone_number")
        if phone:
            destination["phone_number"] = phone
        changes.update(fulfillment_requested=True, destinations=[{**destination, "id": DESTINATION_ID}],
                       selected_destination_id=DESTINATION_ID)
    if "selected_fulfillment_options" in body:
        selected = body["selected_fulfillment_options"]
        changes["selected_option_id"] = selected[0]["option_id"] if selected else ""
    return changes


def declared_interventions(body):
    """The interventions a create body's platform says it can handle (capabilities.interventions)."""
    return body["capabilities"].get("interventions", {}).get("supported", [])


def payment_instrument(body):
    """The instrument a complete body (valid: `validate`) pays with, as the provider reads it."""
    data = body["payment_data"]
    if "handler_id" not in data or "instrument" not in data:
        raise invalid("This shop takes payment_data with a handler_id and an instrument.", "$.payment_data")
    return PaymentInstrument(id="", handler_id=data["handler_id"], credential=data["instrument"]["credential"],
                             authentication=body.get("authentication_result"))


def audited(body):
    """What the audit trail keeps of a body: never a payment credential."""
    data = body.get("payment_data")
    if not isinstance(data, dict):
        return body
    return {**body, "payment_data": {"handler_id": data.get("handler_id")}}


# Answers ------------------------------------------------------------------------------------------

def handlers_for(platform, origin):
    """ACP's PaymentHandler objects of the shop's handlers a platform may use."""
    return [{**handler, "requires_delegate_payment": bool(handler["config"].get("requires_delegate_payment")),
             "requires_pci_compliance": False, "psp": str(handler["config"].get("psp", handler["name"]))}
            for handler in payment_handlers(origin) if may_use(platform, handler)]


def may_use(platform, handler):
    return not platform.test_mode or handler["config"].get(TEST_MODE_FLAG) is True


def total(kind, text, amount):
    return {"type": kind, "display_text": text, "amount": amount}


def line_items(checkout):
    currency, answer = checkout.currency, []
    for line in checkout.lines:
        amount = minor(line["unit_price"], currency) * line["quantity"]
        answer.append({"id": f"li_{line['item_id']}", "item": {"id": line["item_id"]}, "quantity": line["quantity"],
                       "name": line["title"], "unit_amount": minor(line["unit_price"], currency),
                       "totals": [total("items_base_amount", "Base amount", amount),
                                  total("subtotal", "Subtotal", amount), total("total", "Total", amount)]})
    return answer


def totals(checkout):
    currency = checkout.currency
    subtotal = minor(services.subtotal(checkout), currency)
    answer = [total("items_base_amount", "Item(s) total", subtotal)]
    if checkout.applied_discounts:
        answer.append(total("discount", "Discount", minor(services.discount_total(checkout), currency)))
    answer.append(total("subtotal", "Subtotal", subtotal))
    if services.selected_option(checkout):
        answer.append(total("fulfillment", "Shipping", minor(services.shipping(checkout), currency)))
    answer.append(total("total", "Total", max(0, minor(services.total(checkout), currency))))
    return answer


def fulfillment_options(checkout):
    return [{"type": "shipping", "id": option["id"], "title": option["title"],
             "totals": [total("total", option["title"], minor(option["amount"], checkout.currency))]}
            for option in checkout.shipping_options]


def fulfillment_details(checkout):
    destination = services.selected_destination(checkout)
    if destination is None:
        return None
    address = {theirs: destination[ours] for theirs, ours in ADDRESS_FIELDS.items() if ours in destination}
    details = {"address": address} if set(address) >= {"name", "line_one", "city", "state", "country",
                                                       "postal_code"} else {}
    if "full_name" in destination:
        details["name"] = destination["full_name"]
    if "phone_number" in destination:
        details["phone_number"] = destination["phone_number"]
    return details


def links(origin):
    return [{**link, "type": LINK_TYPES[link["type"]]} for link in checkout_links(origin) if link["type"] in LINK_TYPES]


def messages(checkout):
    """What the platform may fix itself, and what an escalated or canceled checkout means."""
    status = checkout.status
    if status == CheckoutSession.Status.OPEN and checkout.lines and services.offers_shipping():
        param = "$.selected_fulfillment_options" if checkout.shipping_options else "$.fulfillment_details"
        return [{"type": "error", "code": "missing", "param": param, "resolution": "recoverable",
                 "content_type": "plain", "content": services.FULFILLMENT_MISSING}]
    if status == CheckoutSession.Status.ESCALATED:
        return [{"type": "info", "resolution": "requires_buyer_input", "content_type": "plain",
                 "content": "The buyer finishes the payment on the shop's checkout page: continue_url."}]
    if status == CheckoutSession.Status.CANCELED:
        return [{"type": "info", "content_type": "plain", "content": "Checkout session has been canceled."}]
    return []


def checkout_object(checkout, origin, platform, intervention_types):
    answer = {
        "id": checkout.public_id,
        "protocol": {"version": VERSION},
        "capabilities": {"payment": {"handlers": handlers_for(platform, origin)}, "interventions": {
            # the seller's answer: the intersection of what both sides support
            "supported": [kind for kind in intervention_types if kind in checkout.platform_interventions],
            "required": [], "enforcement": "conditional"}},
        "status": STATUSES[checkout.status],
        "currency": checkout.currency.lower(),
        "line_items": line_items(checkout),
        "fulfillment_options": fulfillment_options(checkout),
        "totals": totals(checkout),
        "messages": messages(checkout),
        "links": links(origin),
        "created_at": iso_utc(checkout.created_at),
        "updated_at": iso_utc(checkout.updated_at),
        "expires_at": iso_utc(checkout.agent_session.expires_at),
    }
    if checkout.buyer is not None:
        answer["buyer"] = checkout.buyer
    details = fulfillment_details(checkout)
    if details:
        answer["fulfillment_details"] = details
    if checkout.selected_option_id:
        answer["selected_fulfillment_options"] = [{"type": "shipping", "option_id": checkout.selected_option_id,
                                                   "item_ids": [line["item_id"] for line in checkout.lines]}]
    if checkout.continue_url:
        answer["continue_url"] = checkout.continue_url
    if checkout.status == CheckoutSession.Status.CHALLENGED and checkout.payment_challenge:
        answer["authentication_metadata"] = checkout.payment_challenge
    if checkout.order_key:
        answer["order"] = {"id": checkout.order_key, "checkout_session_id": checkout.public_id,
                           "permalink_url": checkout.continue_url or f"{origin}/checkout_sessions/{checkout.public_id}"}
    return answer
