"""The shop's own agent capability, beside the protocol's built-in ones.

The handler is registered here (imported by StoreConfig.ready); the capability itself —
endpoint, method, parameters — is data, added by migration 0002.
"""
from agents_protocol.core.capabilities import register
from agents_protocol.core.errors import not_found

from .models import Item

SHIPS_WITHIN_DAYS = {True: 2, False: 14}
AVAILABILITY = {
    "type": "object",
    "required": ["item_id", "in_stock", "ships_within_days"],
    "properties": {
        "item_id": {"type": "string"},
        "in_stock": {"type": "boolean"},
        "ships_within_days": {"type": "integer", "minimum": 1},
    },
}


@register("availability", output=AVAILABILITY)
def availability(call):
    item = Item.objects.filter(sku=call.params["item_id"], listed=True).first()
    if item is None:
        raise not_found(f"No item has the SKU {call.params['item_id']!r}.", "unknown_item")
    in_stock = item.quantity_on_hand > 0
    return {"item_id": item.sku, "in_stock": in_stock, "ships_within_days": SHIPS_WITHIN_DAYS[in_stock]}
