"""Handlers for seed 001's nine capabilities and order.status. Each checks the rules its
capability adds to the declared descriptors, calls the shop's provider, and shapes the answer."""
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from agents_protocol.core.capabilities import register
from agents_protocol.core.errors import bad_request, not_found
from agents_protocol.core.formats import iso_utc

MAX_PAGE_SIZE = 100
HANDOFF_MESSAGE = (
    "Give this link to your human to review the cart, enter contact and shipping details and pay. "
    "Do not open it yourself."
)


def invalid(name, problem):
    return bad_request(f"Invalid parameters ({name}: {problem})", "invalid_params", fields={name: problem})


def text_param(params, name, min_length, max_length):
    value = params.get(name)
    if not isinstance(value, str) or not min_length <= len(value.strip()) <= max_length:
        raise invalid(name, f"Must be text of {min_length} to {max_length} characters.")
    return value.strip()


def int_param(params, name, default, minimum, maximum):
    value = params.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise invalid(name, f"Must be an integer from {minimum} to {maximum}.")
    return value


def paging(params):
    return int_param(params, "page", 1, 1, 10**9), int_param(params, "limit", 20, 1, MAX_PAGE_SIZE)


def item_id_param(params):
    return text_param(params, "item_id", 1, 200)


@register("search")
def search(call):
    query = text_param(call.params, "q", 1, 200)
    page, limit = paging(call.params)
    found = call.provider.search(call.context, query, page, limit)
    return {"results": found.items, "total": found.total, "page": page, "limit": limit}


@register("browse")
def browse(call):
    category = call.params.get("category") or None
    sort = call.params.get("sort", "newest")
    page, limit = paging(call.params)
    found = call.provider.browse(call.context, category, sort, page, limit)
    return {"items": found.items, "total": found.total, "page": page, "limit": limit}


@register("detail")
def detail(call):
    item_id = text_param(call.params, "id", 1, 200)
    item = call.provider.item_detail(call.context, item_id)
    if item is None:
        raise not_found(f"No product has the id {item_id!r}; use search or browse to find ids.", "unknown_item")
    return item


@register("cart.add")
def cart_add(call):
    quantity = call.params.get("quantity", 1)
    return call.provider.cart_add(call.context, item_id_param(call.params), quantity)


@register("cart.view")
def cart_view(call):
    return call.provider.cart_view(call.context)


@register("cart.update")
def cart_update(call):
    if "quantity" not in call.params:
        raise invalid("quantity", "This parameter is required.")
    return call.provider.cart_update(call.context, item_id_param(call.params), call.params["quantity"])


@register("cart.remove")
def cart_remove(call):
    return call.provider.cart_remove(call.context, item_id_param(call.params))


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
    name = text_param(call.params, "name", 1, 200)
    email = text_param(call.params, "email", 3, 320)
    try:
        validate_email(email)
    except ValidationError:
        raise invalid("email", "Must be a valid email address.") from None
    message = text_param(call.params, "message", 1, 5000)
    return call.provider.contact(call.context, name, email, message)
