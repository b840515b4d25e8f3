"""Handlers for seed 001's nine capabilities and order.status: call the shop's provider and
shape the answer.

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
import re
from dataclasses import replace
from functools import wraps
from urllib.parse import urljoin

from django.db import transaction

from agents_protocol.core import cart_notices, handoffs
from agents_protocol.core.capabilities import register
from agents_protocol.core.errors import (
    MISSING,
    CapabilityError,
    bad_request,
    not_found,
    not_implemented,
)
from agents_protocol.core.formats import iso_utc
from agents_protocol.core.money import money_written
from agents_protocol.core.outputs import check_cart_line
from agents_protocol.core.schema import invalid_params

logger = logging.getLogger(__name__)

REQUIRED = "This parameter is required."
# Where the answers of the built-in capabilities carry an id (an item's, a cart line's, a variant's parent).
ID_KEYS = ("id", "item_id", "variant_of")
HAS_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # RFC 3986's scheme: an absolute URL


def calls_provider(capability, method_name, *, changes=False):
    """Register the built-in handler of `capability`, which calls the provider's `method_name`.

    The answer's money is written with its currency's minor units (core/money.py). A handler
    that `changes` something runs in a transaction the app opens, unless the provider opens
    its own (ShopProvider.atomic_changes); the call's audit event is appended in it.
    """
    def register_handler(handler):
        @wraps(handler)
        def handle(call):
            if changes and getattr(call.provider, "atomic_changes", True):
                with transaction.atomic():
                    data = handler(call)
                    call.context.record_change()
            else:
                data = handler(call)
            return money_written(data)
        handle.provider_method = method_name
        return register(capability, handle)
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


def text_id(value):
    """An id as the published schemas promise ids, text: a Django pk (an int) becomes its digits,
    so an agent can send it back where an id is a string parameter."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


# The answers below are the provider's own objects whenever nothing needs rewriting, and copies
# otherwise: a provider may hand out dicts it keeps and shares between calls (the demo shop's
# catalog read cache does), which the app must not change.

def with_text_ids(answer, keys=ID_KEYS):
    """`answer` (a dict of the provider) with its ids among `keys` as text."""
    for key in keys:
        if type(answer.get(key)) is int:  # type(): True is no id
            return {**answer, **{key: str(answer[key]) for key in keys if type(answer.get(key)) is int}}
    return answer


def published_list(items, publish):
    """`items` with each item as `publish` writes it: the same list when none changed."""
    published = [publish(item) for item in items]
    for new, old in zip(published, items):
        if new is not old:
            return published
    return items


def published_items(items, origin):
    """The items of a search or browse page, each as published_item writes it."""
    return published_list(items, lambda item: published_item(item, origin))


def published_item(item, origin):
    """An item of search, browse or detail (and each of its variants) as the published output
    schemas say it: ids as text, its page's url absolute (Django's get_absolute_url() is a path:
    it is joined to the origin the agent called), and no price nor currency when the shop gives
    it no price (as contrib/oscar omits them for a product its strategy does not price).
    Anything but a dict is left to the codec, as the provider returned it."""
    if not isinstance(item, dict):
        return item
    item = with_text_ids(item)
    url = item.get("url")
    if isinstance(url, str) and not HAS_SCHEME.match(url):
        item = {**item, "url": urljoin(f"{origin}/", url)}
    if "price" in item and item["price"] is None:
        item = {key: value for key, value in item.items() if key not in ("price", "currency")}
    variants = item.get("variants")
    if isinstance(variants, list):
        published = published_items(variants, origin)
        if published is not variants:
            item = {**item, "variants": published}
    return item


def published_cart(cart):
    """A cart (cart.view, or in a line change) with the ids of its lines as text, each line
    checked against the declared CART_LINE (core/outputs.py)."""
    if not (isinstance(cart, dict) and isinstance(cart.get("items"), list)):
        return cart
    lines = published_list(cart["items"], published_line)
    return cart if lines is cart["items"] else {**cart, "items": lines}


def published_line(line):
    return check_cart_line(with_text_ids(line) if isinstance(line, dict) else line)


def published_line_change(answer):
    """What cart.add, cart.update and cart.remove answer, with its ids (and its cart's) as text."""
    if not isinstance(answer, dict):
        return answer
    answer = with_text_ids(answer)
    cart = published_cart(answer.get("cart"))
    return answer if cart is answer.get("cart") else {**answer, "cart": cart}


@calls_provider("search", "search")
def search(call):
    page, limit = paging(call.params)
    found = ask_provider(call, "search", query=value(call.params, "q"), page=page, limit=limit)
    items = published_items(found.items, call.context.origin)
    return {"results": items, "total": found.total, "page": page, "limit": limit}


@calls_provider("browse", "browse")
def browse(call):
    category = call.params.get("category") or None
    page, limit = paging(call.params)
    found = ask_provider(call, "browse", category=category, sort=value(call.params, "sort"), page=page, limit=limit)
    items = published_items(found.items, call.context.origin)
    return {"items": items, "total": found.total, "page": page, "limit": limit}


@calls_provider("detail", "item_detail")
def detail(call):
    item_id = value(call.params, "id")
    try:
        item = ask_provider(call, "item_detail", item_id=item_id)
    except NothingThere:  # the provider's get_object_or_404: the answer a None gets
        item = None
    if item is None:
        raise not_found(f"No product has the id {item_id!r}; use search or browse to find ids.", "unknown_item")
    return published_item(item, call.context.origin)


def with_cart_notices(call, answer, cart, changed_item=None):
    """`answer` with notices of what changed in `cart` since the agent last saw the session's
    cart (core/cart_notices.py), and `cart` kept as what it has seen now."""
    session = call.context.session
    if session is None:
        return answer
    now = cart_notices.snapshot(cart)
    notices = cart_notices.changes(call.context.cart_shown_before(), now,
                                   changed_item=None if changed_item is None else str(changed_item))
    cart_notices.remember(session, now)
    if not notices or not isinstance(answer, dict):
        return answer
    return {**answer, "notices": [*answer.get("notices", ()), *notices]}


def line_change(call, answer):
    answer = published_line_change(answer)
    if not isinstance(answer, dict):
        return answer
    return with_cart_notices(call, answer, answer.get("cart"), changed_item=answer.get("item_id"))


@calls_provider("cart.add", "cart_add", changes=True)
def cart_add(call):
    params = call.params
    return line_change(
        call, ask_provider(call, "cart_add", item_id=value(params, "item_id"), quantity=value(params, "quantity")))


@calls_provider("cart.view", "cart_view")
def cart_view(call):
    cart = published_cart(ask_provider(call, "cart_view"))
    return with_cart_notices(call, cart, cart)


@calls_provider("cart.update", "cart_update", changes=True)
def cart_update(call):
    params = call.params
    return line_change(
        call, ask_provider(call, "cart_update", item_id=value(params, "item_id"), quantity=value(params, "quantity")))


@calls_provider("cart.remove", "cart_remove", changes=True)
def cart_remove(call):
    return line_change(call, ask_provider(call, "cart_remove", item_id=value(call.params, "item_id")))


@calls_provider("checkout", "checkout", changes=True)
def checkout(call):
    notices = cart_handed_off_notices(call)
    handoff = ask_provider(call, "checkout")
    if call.context.session is not None:
        cart_notices.remember(call.context.session, None)  # the session's next cart is a new one
    answer = {
        "checkout_url": handoff.checkout_url,
        "human_handoff": True,
        "expires_at": iso_utc(handoff.expires_at),
        "order_id": text_id(handoffs.agent_order_id(call.context.session, handoff)),
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
        now = cart_notices.snapshot(published_cart(ask_provider(call, "cart_view")))
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


@calls_provider("order.status", "order_status")
def order_status(call):
    """The provider's answer, or for a checkout handed off by reference (core/handoffs.py) the
    answer of the order the shop said it became, under the agent's order_id."""
    order_id = call.params.get("order_id") or None
    session = call.context.session
    if order_id is None:
        handed_off = handoffs.session_handoffs(session)
        if handed_off:
            return {"orders": [handoff_status(call, handoff) for handoff in handed_off]}
        return published_orders(ask_provider(call, "order_status", order_id=None))
    handoff = handoffs.session_handoff(session, order_id)
    if handoff is None:
        return published_orders(ask_provider(call, "order_status", order_id=order_id))
    return handoff_status(call, handoff)


def published_orders(answer):
    """order.status as the published output schema says it: order ids as text, in the one order
    or in each of the list."""
    if not isinstance(answer, dict):
        return answer
    orders = answer.get("orders")
    if not isinstance(orders, list):
        return with_text_ids(answer, ("order_id",))
    published = published_list(orders, lambda order: with_text_ids(order, ("order_id",))
                               if isinstance(order, dict) else order)
    return answer if published is orders else {**answer, "orders": published}


def handoff_status(call, handoff):
    if handoff.resolved_at is None:
        return handoffs.unresolved_status(handoff)
    about_handoff = replace(call, context=replace(call.context, resolved_handoff=handoff))
    order = ask_provider(about_handoff, "order_status", order_id=handoff.order_number)
    return {**order, "order_id": handoff.order_id, "order_number": handoff.order_number}


@calls_provider("contact", "contact", changes=True)
def contact(call):
    params = call.params
    return ask_provider(call, "contact", name=value(params, "name"), email=value(params, "email"),
                        message=value(params, "message"))
