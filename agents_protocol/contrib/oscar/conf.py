"""The Oscar integration's settings: one `AGENTS_PROTOCOL_OSCAR` dict, declared below and read as
attributes of `oscar_settings` (agents_protocol/core/settings_declaration.py)."""
from agents_protocol.core.settings_declaration import Choice, DeclaredSettings, Setting, Text, TextList, WholeNumber


class OscarSettings(DeclaredSettings):
    """Only for a django-oscar shop whose provider is `agents_protocol.contrib.oscar.provider.OscarProvider`."""

    setting = "AGENTS_PROTOCOL_OSCAR"
    keys_check = "agents_protocol_oscar.E001"
    values_check = "agents_protocol_oscar.E002"

    ITEM_ID = Setting(
        "pk", Choice("pk", "upc"),
        "how agents name a product: `\"pk\"` (its primary key) or `\"upc\"` (its UPC; products without one are "
        "then out of the agents' reach).")
    CHECKOUT_TTL_SECONDS = Setting(
        1800, WholeNumber(0), "how long a checkout link handed to an agent stays valid; it opens once.")
    CHECKOUT_URL_NAME = Setting(
        "checkout:index", Text(),
        "the URL name the link takes the human to, once the agent's basket is theirs: Oscar's checkout, or e.g. "
        "`\"basket:summary\"`.")
    CANCELLED_STATUSES = Setting(
        ["Cancelled"], TextList(),
        "Oscar order statuses that order.status reports as `cancelled`; every other status of a placed order is "
        "`confirmed` (Oscar's own status is given beside it as `shop_status`).")


oscar_settings = OscarSettings()
