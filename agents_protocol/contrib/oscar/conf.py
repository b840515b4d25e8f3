"""The Oscar integration's settings: one `AGENTS_PROTOCOL_OSCAR` dict, with these defaults.

ITEM_ID               how agents name a product: "pk" (its primary key) or "upc" (its UPC;
                      products without one are then out of the agents' reach).
CHECKOUT_TTL_SECONDS  how long a checkout link handed to an agent stays valid (single use).
CHECKOUT_URL_NAME     where the link takes the human, once the agent's basket is theirs:
                      Oscar's checkout ("checkout:index"), or e.g. "basket:summary".
CANCELLED_STATUSES    Oscar order statuses that order.status reports as "cancelled"; every
                      other status of a placed order is "confirmed" (Oscar's own status is
                      given beside it as "shop_status").
"""
from django.conf import settings

DEFAULTS = {
    "ITEM_ID": "pk",
    "CHECKOUT_TTL_SECONDS": 1800,
    "CHECKOUT_URL_NAME": "checkout:index",
    "CANCELLED_STATUSES": ["Cancelled"],
}
ITEM_ID_CHOICES = ("pk", "upc")


def get_setting(name):
    return getattr(settings, "AGENTS_PROTOCOL_OSCAR", {}).get(name, DEFAULTS[name])
