"""The agent session's Oscar basket: one open basket per session, changed under a lock.

Every change locks the basket's row first (SELECT … FOR UPDATE on PostgreSQL; SQLite, which
ignores it, serializes writers with IMMEDIATE transactions), so parallel calls of one session
check the stock against the quantity the previous call left. Two first adds at once both try
to create the session's open basket: the unique open link lets one win, and the other uses
the winner's.
"""
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction
from oscar.core.loading import get_class, get_model
from oscar.core.utils import get_default_currency

from agents_protocol.contrib.oscar import catalogue
from agents_protocol.contrib.oscar.models import AgentBasket
from agents_protocol.core.errors import CapabilityError

Basket = get_model("basket", "Basket")
Applicator = get_class("offer.applicator", "Applicator")


def unknown_item(item):
    return CapabilityError(404, "unknown_item", f"No item has the id {item!r}; use search or browse to find ids.")


def open_basket(session):
    """The session's open basket, or None before its first add."""
    link = AgentBasket.objects.filter(session=session, reference=None).select_related("basket").first()
    return link.basket if link else None


def lock_open_basket(session):
    """The session's open basket, created on first use, its row locked until the transaction ends."""
    link = AgentBasket.objects.filter(session=session, reference=None).first()
    if link is None:
        link = create_open_basket(session)
    basket = Basket.objects.select_for_update().get(pk=link.basket_id)
    basket.strategy = catalogue.strategy()
    return basket


def create_open_basket(session):
    try:
        with transaction.atomic():
            return AgentBasket.objects.create(session=session, basket=Basket.objects.create())
    except IntegrityError:  # another call of this session created it first
        return AgentBasket.objects.get(session=session, reference=None)


def purchasable(item):
    """The product an agent may put in a basket: standalone or a variant, never a parent."""
    product = catalogue.find_product(item)
    if product is None:
        raise unknown_item(item)
    if product.is_parent:
        ids = ", ".join(variant["id"] for variant in catalogue.variants(product, catalogue.strategy()))
        raise CapabilityError(400, "variant_required",
                              f"{product.get_title()} comes in variants; add one of them: {ids}.")
    return product


def set_quantity(session, item, quantity, *, add):
    """Add `quantity` of an item to the session's basket, or set its line to `quantity` (0 removes
    it); refused when the stock or the shop's basket limit does not allow a higher quantity. A
    line already in the basket can always be lowered, even once its product is hidden."""
    if quantity < (1 if add else 0):
        raise CapabilityError(400, "invalid_quantity", f"quantity must be at least {1 if add else 0}.")
    product = purchasable(item) if add else in_basket_product(item)
    basket = lock_open_basket(session)
    line = basket.lines.filter(product=product).first()
    in_basket = line.quantity if line else 0
    if not add and line is None:
        raise not_in_basket(product, item)
    wanted = in_basket + quantity if add else quantity
    if wanted > in_basket:
        require_purchase_permitted(basket, product, wanted, wanted - in_basket)
    if line is None:
        basket.add_product(product, quantity)
    elif wanted == 0:
        line.delete()
    else:
        line.quantity = wanted
        line.save(update_fields=["quantity"])
    return wanted


def in_basket_product(item):
    """The product of a line the agent may change or remove: any product the id names, public or
    not (a product hidden since it was added stays in the basket until the agent removes it)."""
    query = catalogue.lookup(item)
    product = catalogue.Product.objects.filter(query).first() if query is not None else None
    if product is None:
        raise unknown_item(item)
    return product


def remove(session, item):
    product = in_basket_product(item)
    basket = lock_open_basket(session)
    deleted, _ = basket.lines.filter(product=product).delete()
    if not deleted:
        raise not_in_basket(product, item)


def require_purchase_permitted(basket, product, quantity, increase):
    info = basket.strategy.fetch_for_product(product)
    if not info.price.exists or info.stockrecord is None:
        raise CapabilityError(400, "insufficient_stock", f"{product.get_title()} is not for sale at the moment.")
    permitted, reason = info.availability.is_purchase_permitted(quantity)
    if not permitted:
        raise CapabilityError(400, "insufficient_stock", f"{product.get_title()}: {reason} (asked for {quantity}).")
    allowed, reason = basket.is_quantity_allowed(increase)
    if not allowed:
        raise CapabilityError(400, "quantity_above_maximum", str(reason))


def not_in_basket(product, item):
    return CapabilityError(404, "item_not_in_cart", f"{product.get_title()} ({item}) is not in the cart.")


def apply_offers(basket):
    """`basket` priced by the shop's strategy with Oscar's offers applied as for a guest: the
    site's, and its vouchers' (Oscar's Applicator applies a voucher only for a user)."""
    basket.strategy = catalogue.strategy()
    Applicator().apply(basket, AnonymousUser())
    return basket


def priced_basket(session):
    """The session's open basket with its offers applied, or None before its first add."""
    basket = open_basket(session)
    return None if basket is None else apply_offers(basket)


def contents(basket):
    """The basket as agents see it, priced by the shop's strategy with its offers applied."""
    if basket is None:
        return {"items": [], "subtotal": 0, "currency": get_default_currency(), "cart_size": 0, "total_quantity": 0}
    lines = apply_offers(basket).all_lines()
    items = [line_data(line) for line in lines]
    return {
        "items": items,
        "subtotal": basket.total_incl_tax if basket.is_tax_known else basket.total_excl_tax,
        "currency": basket.currency or get_default_currency(),  # Oscar's is None without lines
        "cart_size": len(items),
        "total_quantity": basket.num_items,
    }


def line_data(line):
    unit = line.unit_price_incl_tax if line.is_tax_known else line.unit_price_excl_tax
    total = line.line_price_incl_tax_incl_discounts if line.is_tax_known else line.line_price_excl_tax_incl_discounts
    return {
        "item_id": catalogue.item_id(line.product),
        "name": line.product.get_title(),
        "unit_price": unit,
        "currency": line.price_currency,
        "quantity": line.quantity,
        "line_total": total,
    }
