"""What changed in a session's cart since the agent was last shown it, as sentences for the agent.

Every provider gets these without code: the app keeps the cart of each cart answer it gives
(AgentSession.shown_cart, a snapshot of ids, names, prices and quantities) and compares the
next cart answer, and the cart checkout hands off, with it. A price the shop changed, a line
the shop removed (its product deleted) or whose quantity it lowered: each is a notice naming
the line, from what to what. Lines have the one declared shape (core/outputs.py CART_LINE).
"""
from decimal import Decimal

from django.db import connection

from agents_protocol.core.money import amount_written, minor_units

# A fixed statement on Django's cursor, as the audit chain's (audit/chain.py): every cart change runs
# it in its write transaction, and compiling the ORM's update() costs several times the write.
STORE_SHOWN_CART = "UPDATE agents_protocol_agentsession SET shown_cart = %(shown)s WHERE id = %(id)s"


def snapshot(cart):
    """What the agent sees of `cart` (a cart answer), JSON-ready; None for no cart."""
    if not isinstance(cart, dict) or not isinstance(cart.get("items"), list):
        return None
    currency = cart.get("currency")
    lines = {}
    for line in cart["items"]:
        item = line.get("item_id") if isinstance(line, dict) else None
        if item is not None:
            lines[str(item)] = [str(line.get("name") or item), price_text(line, "unit_price", currency),
                                line.get("quantity")]
    return {"lines": lines, "subtotal": str(price_text(cart, "subtotal")), "currency": currency}


def price_text(data, key, currency=None):
    """str(amount_written(data, key, currency)), None for None. A Decimal that already has its
    currency's decimals (a DecimalField's value, as most shops give) is written as it is: the
    snapshot of each cart answer skips the rounding of every line."""
    value = data.get(key)
    if type(value) is Decimal and value.is_finite():
        named = data.get("currency")
        currency = named if isinstance(named, str) else currency
        text = str(value)
        point = text.find(".")
        decimals = len(text) - point - 1 if point >= 0 else 0
        if currency is not None and "E" not in text and decimals == minor_units(currency):
            return text
    written = amount_written(data, key, currency)
    return None if written is None else str(written)


def remember(session, shown):
    """Keep `shown` (a snapshot) as the cart the session's agent has seen."""
    if session.shown_cart != shown:
        column = type(session)._meta.get_field("shown_cart")
        with connection.cursor() as cursor:  # the value prepared as the ORM saves it
            cursor.execute(STORE_SHOWN_CART, {"shown": column.get_db_prep_save(shown, connection), "id": session.pk})
        session.shown_cart = shown


def changes(shown, now, *, changed_item=None):
    """Sentences on what changed from `shown` (a snapshot) to `now` (a snapshot) that the agent
    did not do itself; `changed_item` is the line the agent's own call just changed."""
    if not shown or not now:
        return []
    currency = now.get("currency") or ""
    notices = []
    for item, (name, price_then, quantity_then) in shown["lines"].items():
        line = now["lines"].get(item)
        if line is None:
            if item != changed_item:
                notices.append(f"{name} ({item}) is no longer in the cart: the shop removed it.")
            continue
        _, price_now, quantity_now = line
        if (price_then != price_now and price_then is not None and price_now is not None
                and Decimal(price_then) != Decimal(price_now)):  # the same text is the same price
            notices.append(f"The price of {name} ({item}) changed from {price_then} to {price_now} {currency} "
                           "since you last saw the cart.")
        if item != changed_item and quantity_now != quantity_then:
            notices.append(f"The cart now holds {quantity_now} of {name} ({item}), not {quantity_then}.")
    if notices and changed_item is None and shown["subtotal"] != now["subtotal"]:
        notices.append(f"The subtotal is now {now['subtotal']} {currency}, not {shown['subtotal']}.")
    return notices


def over_stock(item, line, stock):
    """The notice for a line whose quantity is more than the `stock` the shop counts now."""
    name, _, quantity = line
    return (f"Only {stock} of {name} ({item}) are in stock now but the cart holds {quantity}: the shop does not "
            "hold stock for a cart, so your human may be unable to pay for all of them.")


def no_longer_for_sale(item, line):
    return f"{line[0]} ({item}) is no longer for sale; cart.remove it before checking out."
