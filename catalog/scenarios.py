"""The catalog's scenarios: test pieces that behave in set ways, so an agent's developer can walk
into each situation through the normal API (docs/agent-testing.md).

- `test-sold-out-mug` is always out of stock.
- `test-last-one-vase` has a stock of one: the first checkout its human confirms takes it.
- `test-price-change-bowl` is listed at 30.00 and costs 36.00 once it is in a cart.
- `test-tumbler` comes in two variants; `test-tumbler-discontinued` is discontinued as soon as
  it is added to a cart.

The pieces change the shared catalog, so `detail` of a piece (of the tumbler's parent for the
variant) re-arms it, unless the caller's own cart, or an order of its the human may still
confirm, holds it (acme/agents.py): an agent that looks first always starts from the documented
state. `install_scenarios()` (re)creates them all, idempotently: `manage.py load_demo_catalog`
runs it, and whatever resets the demo must too.
"""
from datetime import datetime, timezone
from decimal import Decimal

from django.db import transaction

from .models import Category, Product

CATEGORY = {
    "slug": "test-pieces",
    "name": "Test pieces",
    "description": "Pieces that behave in set ways, for developers testing their AI agents against this demo.",
    "position": 99,
}
SOLD_OUT = "test-sold-out-mug"
LAST_ONE = "test-last-one-vase"
PRICE_CHANGE = "test-price-change-bowl"
TUMBLER = "test-tumbler"
STAYING_VARIANT = "test-tumbler-blue"
DISCONTINUED = "test-tumbler-discontinued"
LISTED_PRICE, RAISED_PRICE = Decimal("30.00"), Decimal("36.00")
PLENTY = 500
# Old enough that the pieces never open the shop's "newest first" shelf.
CREATED = datetime(2020, 1, 1, tzinfo=timezone.utc)

PIECES = [
    (SOLD_OUT, "Sold-Out Test Mug", Decimal("18.00"), 0, "A test piece that is always out of stock."),
    (LAST_ONE, "Last-One Test Vase", Decimal("40.00"), 1,
     "A test piece with a stock of one: the first checkout its human confirms takes it."),
    (PRICE_CHANGE, "Price-Change Test Bowl", LISTED_PRICE, PLENTY,
     "A test piece listed at 30.00 that costs 36.00 once it is in a cart."),
    (TUMBLER, "Test Tumbler", Decimal("20.00"), 2 * PLENTY,
     "A test piece in two variants; the discontinued one is withdrawn as soon as it is added to a cart."),
]
VARIANTS = [
    (STAYING_VARIANT, "Test Tumbler, blue", {"glaze": "blue"}),
    (DISCONTINUED, "Test Tumbler, discontinued", {"glaze": "discontinued"}),
]
# The product whose detail re-arms each stateful piece, and how.
REARMED_BY_DETAIL = {
    LAST_ONE: (LAST_ONE, {"stock": 1}),
    PRICE_CHANGE: (PRICE_CHANGE, {"price": LISTED_PRICE}),
    TUMBLER: (DISCONTINUED, {"is_active": True}),
}
CHANGED_BY_CART_ADD = {
    PRICE_CHANGE: {"price": RAISED_PRICE},
    DISCONTINUED: {"is_active": False},
}


@transaction.atomic
def install_scenarios():
    """Create the test pieces, or put them back in their documented state."""
    category, _ = Category.objects.update_or_create(slug=CATEGORY["slug"], defaults=CATEGORY)
    for public_id, name, price, stock, description in PIECES:
        _piece(public_id, name, price, stock, description, category)
    tumbler = Product.objects.get(public_id=TUMBLER)
    for public_id, name, attributes in VARIANTS:
        _piece(public_id, name, tumbler.price, PLENTY, f"{tumbler.description} This one: {attributes['glaze']}.", category,
               variant_of=tumbler, variant_attributes=attributes)
    Product.objects.filter(category=category).update(created=CREATED)


def _piece(public_id, name, price, stock, description, category, **extra):
    Product.objects.update_or_create(public_id=public_id, defaults={
        "slug": public_id, "name": name, "price": price, "currency": "USD", "stock": stock,
        "description": description, "category": category, "materials": ["stoneware"], "tags": ["test"],
        "is_active": True, **extra,
    })


def rearms(item_id):
    """The piece a detail of `item_id` re-arms, or None (most products: no query at all)."""
    found = REARMED_BY_DETAIL.get(item_id)
    return found[0] if found else None


def rearm(item_id):
    """Put the piece `item_id`'s detail re-arms back in its documented state. Written only when it
    left that state: every write bumps the catalog's version, which empties every worker's read cache."""
    public_id, state = REARMED_BY_DETAIL[item_id]
    Product.objects.filter(public_id=public_id).exclude(**state).update(**state)


def after_added_to_cart(item_id):
    """What happens to a piece once it is in a cart: its price rises, or it is discontinued."""
    change = CHANGED_BY_CART_ADD.get(item_id)
    if change is not None:
        Product.objects.filter(public_id=item_id).exclude(**change).update(**change)
