"""The ACP product feed (`rfc.product_feeds.md`, `schema.feed.json` of 2026-04-17) from the catalog.

Its offline full replacement: `metadata.json` (a FeedMetadata) and `products.jsonl`, one Product
a line. Each of the provider's catalog_items (the detail capability's shape) is a Product; its
variants, or the item itself when it has none, are the Variants, whose ids are the item ids
cart.add and checkout sessions take. Prices are in minor units. A feed holds nothing of a buyer.
"""
from agents_protocol.core import codec
from agents_protocol.core.formats import iso_utc
from agents_protocol.core.money import in_minor_units
from agents_protocol.core.provider import is_absolute_http_url
from agents_protocol.documents.interop import slug

PRODUCTS_FILE, METADATA_FILE = "products.jsonl", "metadata.json"
JSONL_CONTENT_TYPE = "application/jsonl; charset=utf-8"


def feed_metadata(config, updated_at):
    """The feed's FeedMetadata: its stable id (from the site's name) and when it was written."""
    return {"id": slug(config.site.name, "catalog"), "updated_at": iso_utc(updated_at)}


def product_lines(items, seller):
    """`products.jsonl` of `items` (catalog_items), a line of UTF-8 bytes at a time."""
    for item in items:
        yield codec.encode(feed_product(item, seller)) + b"\n"


def feed_product(item, seller):
    """The Product of one catalog item; `seller` is the shop's name."""
    product = {"id": str(item["id"]), "title": str(item["name"])}
    product.update(_description(item))
    if is_absolute_http_url(item.get("url")):
        product["url"] = item["url"]
    if is_absolute_http_url(item.get("image_url")):
        product["media"] = [{"type": "image", "url": item["image_url"], "alt_text": str(item["name"])}]
    offers = item["variants"] if "variants" in item else [item]
    product["variants"] = [feed_variant(offer, item, seller) for offer in offers]
    return product


def feed_variant(offer, item, seller):
    """The Variant of `offer` (one of the item's variants, or the item itself) of catalog `item`."""
    variant = {"id": str(offer["id"]), "title": str(offer["name"])}
    currency = offer.get("currency") or item.get("currency")
    if offer.get("price") is not None and currency:
        variant["price"] = {"amount": in_minor_units(offer["price"], currency), "currency": str(currency).upper()}
    if isinstance(offer.get("in_stock"), bool):
        variant["availability"] = {"available": offer["in_stock"],
                                   "status": "in_stock" if offer["in_stock"] else "out_of_stock"}
    category = item.get("category_name") or item.get("category")
    if category:
        variant["categories"] = [{"value": str(category), "taxonomy": "merchant"}]
    options = offer.get("attributes") or {}
    if options:
        variant["variant_options"] = [{"name": str(name), "value": str(value)} for name, value in options.items()]
    if seller:
        variant["seller"] = {"name": seller}
    return variant


def _description(item):
    text = item.get("description")
    return {"description": {"plain": str(text)}} if text else {}
