import zlib

from django import template

register = template.Library()

CURRENCY_SYMBOLS = {"USD": "$", "CAD": "$", "AUD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}

# Placeholder drawings for products without a photo: the shape follows the first keyword found
# in the name, the colours the first colour tag (the glaze), else a colour fixed by the public id.
SHAPE_KEYWORDS = [
    ("teapot", "teapot"),
    ("planter", "planter"),
    ("pitcher", "pitcher"),
    ("tumbler", "tumbler"),
    ("yunomi", "tumbler"),
    ("mug", "mug"),
    ("cup", "mug"),
    ("bowl", "bowl"),
    ("dish", "bowl"),
    ("cellar", "bowl"),
    ("plate", "plate"),
    ("platter", "plate"),
]
DEFAULT_SHAPE = "vase"
COLOUR_TAG_TINTS = {
    "white": ("#e4ded4", "#fbf9f4"),
    "black": ("#e8e1d8", "#3d322c"),
    "green": ("#e0e8dd", "#8caa8f"),
    "blue": ("#e1e6ee", "#4f6a9a"),
    "orange": ("#f2e6da", "#d28c5e"),
    "terracotta": ("#f1e3d7", "#b4623c"),
    "speckled": ("#ede6d9", "#cdbb9c"),
}
FALLBACK_TINTS = [("#ece3d3", "#b9a489"), ("#e9ddd3", "#9c6b4f"), ("#e6e2d6", "#7c7a5e")]


@register.filter
def money(amount, currency):
    """Format a Decimal price as e.g. "$32.00 USD"."""
    return f"{CURRENCY_SYMBOLS.get(currency, '')}{amount:,.2f} {currency}"


@register.inclusion_tag("catalog/_placeholder.html")
def product_placeholder(product):
    background, vessel = _placeholder_tint(product)
    return {
        "shape": _placeholder_shape(product.name.lower()),
        "background": background,
        "vessel": vessel,
    }


def _placeholder_tint(product):
    for tag in product.tags:
        if tag in COLOUR_TAG_TINTS:
            return COLOUR_TAG_TINTS[tag]
    return FALLBACK_TINTS[zlib.crc32(product.public_id.encode()) % len(FALLBACK_TINTS)]


def _placeholder_shape(name):
    return next((shape for keyword, shape in SHAPE_KEYWORDS if keyword in name), DEFAULT_SHAPE)
