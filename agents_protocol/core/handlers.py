"""Handlers for seed 001's nine capabilities and order.status: call the shop's provider and
answer what each capability declares (core/outputs.py), which writes ids as text and urls
absolute by that declaration and checks the provider's answer against it.

Every rule on a parameter (required, type, bounds, lengths, format, defaults) is declared in
the capability configuration and checked by core/schema.py before a handler runs, so
`call.params` holds only valid values, trimmed text and the declared defaults. A handler
keeps only what the schema cannot say: that an empty category or order_id means "all", and
whatever the shop's provider refuses (unknown items, the cart's own quantity rules).

Each handler calls one method of the provider (core/provider.py's ShopProvider), `context`
first and every other argument by keyword; the handler's `provider_method` names it, so
system check W002 can name an enabled capability whose method the provider lacks.
"""
import logging
from dataclasses import replace
from functools import wraps

from django.db import transaction

from agents_protocol.core import cart_notices, handoffs
from agents_protocol.core.capabilities import register_checked
from agents_protocol.core.errors import (
    MISSING,
    CapabilityError,
    bad_request,
    not_found,
    not_implemented,
)
from agents_protocol.core.formats import iso_utc
from agents_protocol.core.money import money_written
from agents_protocol.core import outputs
from agents_protocol.core.schema import invalid_params

logger = logging.getLogger(__name__)

REQUIRED = "This parameter is required."


def calls_provider(capability, method_name, output, *, changes=False):
    """Register the built-in handler of `capability`, which calls the provider's `method_name`
    and answers what `output` declares.

    The answer is written and checked as declared (core/outputs.py), its money with its
    currency's minor units (core/money.py). A handler that `changes` something runs in a
    transaction the app opens, unless the provider opens its own (ShopProvider.atomic_changes);
    the call's audit event is appended in it, and an answer without the declared shape rolls
    the change back.
    """
    def register_handler(handler):
        def answer(call):
            return money_written(outputs.published(handler(call), output, call.context.origin, capability))

        @wraps(handler)
        def handle(call):
            if changes and getattr(call.provider, "atomic_changes", True):
                with transaction.atomic():
                    data = answer(call)
                    call.context.record_change()
                return data
            return answer(call)
        handle.provider_method = method_name
        handle.answers_as_declared = True
        return register_checked(capability, handle, output)
    return register_handler


class NothingThere(CapabilityError):
    """The provider said, the way Django code does (get_object_or_404, Model.objects.get), that
    what the call names does not exist."""

    def __init__(self):
        super().__init__(404, "not_found", "Nothing the request names exists on this site; check the ids it sends.")


def ask_provider(call, method_name, **arguments):
    """The provider's `method_name` called with `arguments` by keyword; 501 when it has none, and
    404 NothingThere when it raises Http404 or a model's DoesNotExist."""
    method = getattr(call.provider, method_name, None)
    if not callable(method):
        raise not_implemented(call.name)
    try:
        return method(call.context, **arguments)
    except MISSING:
        # Usually the item asked for; a provider's own bug (a missing related row) looks the same.
        logger.info("The provider's %s() found nothing", method_name, exc_info=True)
        raise NothingThere() from None


def value(params, name):
    """A parameter's value, or its declared default. A configuration that no longer declares
    the parameter, or dropped its default, gets the answer a missing required parameter gets."""
    try:
        return params[name]
    except KeyError:
        raise bad_request(f"Invalid parameters ({name}: {REQUIRED})", "invalid_params", fields={name: REQUIRED}) from None


def paging(params):
    """The page and limit asked for, or their declared defaults. Both count from 1 (admin requires
    a minimum of 1: core/schema.py's paging_errors); a configuration saved before that rule may
    still let 0 through, which is refused as a bound would be."""
    page, limit = value(params, "page"), value(params, "limit")
    below_one = {name: "Must be an integer of at least 1." for name, number in (("page", page), ("limit", limit))
                 if not isinstance(number, int) or number < 1}
    if below_one:
        raise invalid_params(below_one)
    return page, limit


@calls_provider("search", "search", outputs.SEARCH)
def search(call):
    page, limit = paging(call.params)
    found = ask_provider(call, "search", query=value(call.params, "q"), page=page, limit=limit)
    return {"results": found.items, "total": found.total, "page": page, "limit": limit}


@calls_provider("browse", "browse", outputs.BROWSE)
def browse(call):
    category = call.params.get("category") or None
    page, limit = paging(call.params)
    found = ask_provider(call, "browse", category=category, sort=value(call.params, "sort"), page=page, limit=limit)
    return {"items": found.items, "total": found.total, "page": page, "limit": limit}


@calls_provider("detail", "item_detail", outputs.DETAIL)
def detail(call):
    item_id = value(call.params, "id")
    try:
        item = ask_provider(call, "item_detail", item_id=item_id)
    except NothingThere:  # the provider's get_object_or_404: the answer a None gets
        item = None
    if item is None:
        raise not_found(f"No product has the id {item_id!r}; use search or browse to find ids.", "unknown_item")
    return item


def with_cart_notices(call, answer, cart, changed_item=None):
    """`answer` with notices of what changed in `cart` since the agent last saw the session's
    cart (core/cart_notices.py), and `cart` kept as what it has seen now."""
    session = call.context.session
    if session is None:
        return answer
    now = call.context.cart_snapshot(cart)
    notices = cart_notices.changes(call.context.cart_shown_before(), now,
                                   changed_item=None if changed_item is None else str(changed_item))
    cart_notices.remember(session, now)
    if not notices or not isinstance(answer, dict):
        return answer
    return {**answer, "notices": [*answer.get("notices", ()), *notices]}


def line_change(call, answer):
    if not isinstance(answer, dict):
        return answer
    return with_cart_notices(call, answer, answer.get("cart"), changed_item=answer.get("item_id"))


@calls_provider("cart.add", "cart_add", outputs.CART_LINE_CHANGE, changes=True)
def cart_add(call):
    params = call.params
    return line_change(
        call, ask_provider(call, "cart_add", item_id=value(params, "item_id"), quantity=value(params, "quantity")))


@calls_provider("cart.view", "cart_view", outputs.CART)
def cart_view(call):
    cart = ask_provider(call, "cart_view")
    return with_cart_notices(call, cart, cart)


@calls_provider("cart.update", "cart_update", outputs.CART_LINE_CHANGE, changes=True)
def cart_update(call):
    params = call.params
    return line_change(
        call, ask_provider(call, "cart_update", item_id=value(params, "item_id"), quantity=value(params, "quantity")))


@calls_provider("cart.remove", "cart_remove", outputs.CART_LINE_CHANGE, changes=True)
def cart_remove(call):
    return line_change(call, ask_provider(call, "cart_remove", item_id=value(call.params, "item_id")))


@calls_provider("checkout", "checkout", outputs.HANDOFF, changes=True)
def checkout(call):
    notices = cart_handed_off_notices(call)
    handoff = ask_provider(call, "checkout")
    if call.context.session is not None:
        cart_notices.remember(call.context.session, None)  # the session's next cart is a new one
    answer = {
        "checkout_url": handoff.checkout_url,
        "human_handoff": True,
        "expires_at": iso_utc(handoff.expires_at),
        "order_id": handoffs.agent_order_id(call.context.session, handoff),
        "message": handoff.message,
    }
    notices += [notice for notice in handoff.notices if notice not in notices]
    if notices:
        answer["notices"] = notices
    return answer


def cart_handed_off_notices(call):
    """What changed in the cart about to be handed off since the agent last saw it, and the lines
    whose quantity is above the stock the shop counts now (its detail's `stock`); refused with
    400 insufficient_stock when a line is no longer for sale (its detail is gone)."""
    session = call.context.session
    if session is None or not callable(getattr(call.provider, "cart_view", None)):
        return []
    try:
        now = cart_notices.snapshot(ask_provider(call, "cart_view"))
    except CapabilityError:  # no cart_view: nothing to compare
        return []
    notices = cart_notices.changes(session.shown_cart, now)
    for item, line in (now or {"lines": {}})["lines"].items():
        detail = line_detail(call, item)
        if detail is None:
            raise bad_request(cart_notices.no_longer_for_sale(item, line), "insufficient_stock")
        stock = detail.get("stock") if isinstance(detail, dict) else None
        if isinstance(stock, int) and isinstance(line[2], int) and line[2] > stock:
            notices.append(cart_notices.over_stock(item, line, stock))
    return notices


def line_detail(call, item):
    """The provider's detail of a cart line's item; None when it is no longer for sale, and
    {} when the provider has no detail to ask."""
    try:
        return ask_provider(call, "item_detail", item_id=item)
    except NothingThere:
        return None
    except CapabilityError as error:
        if error.status == 404:
            return None
        if error.status == 501:
            return {}
        raise


@calls_provider("order.status", "order_status", outputs.ORDER_STATUS)
def order_status(call):
    """The provider's answer, or for a checkout handed off by reference (core/handoffs.py) the
    answer of the order the shop said it became, under the agent's order_id."""
    order_id = call.params.get("order_id") or None
    session = call.context.session
    if order_id is None:
        handed_off = handoffs.session_handoffs(session)
        if handed_off:
            return {"orders": [handoff_status(call, handoff) for handoff in handed_off]}
        return ask_provider(call, "order_status", order_id=None)
    handoff = handoffs.session_handoff(session, order_id)
    if handoff is None:
        return ask_provider(call, "order_status", order_id=order_id)
    return handoff_status(call, handoff)


def handoff_status(call, handoff):
    if handoff.resolved_at is None:
        return handoffs.unresolved_status(handoff)
    about_handoff = replace(call, context=replace(call.context, resolved_handoff=handoff))
    order = ask_provider(about_handoff, "order_status", order_id=handoff.order_number)
    return {**order, "order_id": handoff.order_id, "order_number": handoff.order_number}


@calls_provider("contact", "contact", outputs.CONTACT, changes=True)
def contact(call):
    params = call.params
    return ask_provider(call, "contact", name=value(params, "name"), email=value(params, "email"),
                        message=value(params, "message"))
