"""Handlers for seed 001's nine capabilities and order.status: call the shop's provider and
shape the answer.

Every rule on a parameter (required, type, bounds, lengths, format, defaults) is declared in
the capability configuration and checked by core/schema.py before a handler runs, so
`call.params` holds only valid values, trimmed text and the declared defaults. A handler
keeps only what the schema cannot say: that an empty category or order_id means "all", and
whatever the shop's provider refuses (unknown items, the cart's own quantity rules).
"""
from agents_protocol.core.capabilities import register
from agents_protocol.core.errors import bad_request, not_found
from agents_protocol.core.formats import iso_utc

HANDOFF_MESSAGE = (
    "Give this link to your human to review the cart, enter contact and shipping details and pay. "
    "Do not open it yourself."
)


REQUIRED = "This parameter is required."


def value(params, name):
    """A parameter's value, or its declared default. A configuration that no longer declares
    the parameter, or dropped its default, gets the answer a missing required parameter gets."""
    try:
        return params[name]
    except KeyError:
        raise bad_request(f"Invalid parameters ({name}: {REQUIRED})", "invalid_params", fields={name: REQUIRED}) from None


def paging(params):
    """The page and limit asked for, or their declared defaults."""
    return value(params, "page"), value(params, "limit")


@register("search")
def search(call):
    page, limit = paging(call.params)
    found = call.provider.search(call.context, value(call.params, "q"), page, limit)
    return {"results": found.items, "total": found.total, "page": page, "limit": limit}


@register("browse")
def browse(call):
    category = call.params.get("category") or None
    page, limit = paging(call.params)
    found = call.provider.browse(call.context, category, value(call.params, "sort"), page, limit)
    return {"items": found.items, "total": found.total, "page": page, "limit": limit}


@register("detail")
def detail(call):
    item_id = value(call.params, "id")
    item = call.provider.item_detail(call.context, item_id)
    if item is None:
        raise not_found(f"No product has the id {item_id!r}; use search or browse to find ids.", "unknown_item")
    return item


@register("cart.add")
def cart_add(call):
    params = call.params
    return call.provider.cart_add(call.context, value(params, "item_id"), value(params, "quantity"))


@register("cart.view")
def cart_view(call):
    return call.provider.cart_view(call.context)


@register("cart.update")
def cart_update(call):
    params = call.params
    return call.provider.cart_update(call.context, value(params, "item_id"), value(params, "quantity"))


@register("cart.remove")
def cart_remove(call):
    return call.provider.cart_remove(call.context, value(call.params, "item_id"))


@register("checkout")
def checkout(call):
    handoff = call.provider.checkout(call.context)
    return {
        "checkout_url": handoff.checkout_url,
        "human_handoff": True,
        "expires_at": iso_utc(handoff.expires_at),
        "order_id": handoff.order_id,
        "message": HANDOFF_MESSAGE,
    }


@register("order.status")
def order_status(call):
    return call.provider.order_status(call.context, call.params.get("order_id") or None)


@register("contact")
def contact(call):
    params = call.params
    return call.provider.contact(
        call.context, value(params, "name"), value(params, "email"), value(params, "message"))
