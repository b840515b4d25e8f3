"""Reads of Oscar's catalogue for agents: products by the configured item id, with prices and
availability from the shop's strategy (Oscar's Selector, or the shop's fork of it)."""
from django.db.models import Min, Q
from django.db.models.functions import Coalesce
from oscar.core.loading import get_class, get_model

from agents_protocol.contrib.oscar.conf import oscar_settings

Product = get_model("catalogue", "Product")
Category = get_model("catalogue", "Category")
Selector = get_class("partner.strategy", "Selector")

SORTS = {
    "price_asc": ("list_price", "pk"),
    "price_desc": ("-list_price", "pk"),
    "newest": ("-date_created", "-pk"),
}


class UnknownCategory(Exception):
    pass


def strategy():
    """The shop's pricing and stock strategy for an anonymous buyer, as Oscar's BasketMiddleware
    picks it for a request without a user."""
    return Selector().strategy()


def item_id(product):
    return str(product.upc if oscar_settings.ITEM_ID == "upc" else product.pk)


def lookup(item):
    """The filter that finds a product by the id agents know it by; None for an id that cannot be one."""
    if oscar_settings.ITEM_ID == "upc":
        return Q(upc=item) if item else None
    return Q(pk=int(item)) if item.isascii() and item.isdigit() and len(item) <= 18 else None  # fits a bigint


def find_product(item):
    """A public product (standalone, parent or child of a public parent), or None."""
    query = lookup(item)
    if query is None:
        return None
    found = Product.objects.public().filter(query).select_related("parent", "product_class").first()
    if found is None or (found.is_child and not found.parent.is_public):
        return None
    return found


def nameable(products):
    """The products agents can name: with ITEM_ID "upc", those that have a UPC."""
    if oscar_settings.ITEM_ID == "upc":
        return products.exclude(upc=None).exclude(upc="")
    return products


def browsable():
    """What agents search and browse: Oscar's browsable products (standalone and parents)."""
    return nameable(Product.objects.browsable())


def search(query):
    matches = Q(title__icontains=query) | Q(description__icontains=query) | Q(upc__iexact=query)
    matches |= Q(children__upc__iexact=query) | Q(children__title__icontains=query)
    return browsable().filter(matches).distinct().order_by("title", "pk")


def browse(category_slug, sort):
    products = browsable()
    if category_slug is not None:
        category = Category.objects.browsable().filter(slug=category_slug).first()
        if category is None:
            raise UnknownCategory(category_slug)
        products = products.filter(categories__in=category.get_descendants_and_self()).distinct()
    # The stock record's price orders the list; a parent's is its cheapest child's.
    list_price = Coalesce(Min("stockrecords__price"), Min("children__stockrecords__price"))
    return products.annotate(list_price=list_price).order_by(*SORTS[sort])


def category_slugs():
    return list(Category.objects.browsable().values_list("slug", flat=True))


def purchase_info(product, pricing=None):
    pricing = pricing or strategy()
    return pricing.fetch_for_parent(product) if product.is_parent else pricing.fetch_for_product(product)


def price_of(info):
    """What the buyer pays for one: with tax when the strategy knows it, else without."""
    price = info.price
    return price.incl_tax if price.is_tax_known else price.excl_tax


def stock_of(info):
    """{"stock": how many can be bought}, or nothing when the strategy does not count stock."""
    available = getattr(info.availability, "num_available", None)
    return {} if available is None else {"stock": max(available, 0)}


def attributes(product):
    return {value.attribute.code: value.value_as_text for value in product.get_attribute_values()}


def variants(product, pricing):
    return [
        {"id": item_id(child), "name": child.get_title(), "attributes": attributes(child),
         **offer(purchase_info(child, pricing))}
        for child in nameable(product.get_public_children()).order_by("pk")
    ]


def offer(info):
    return {**price_with_currency(info), "in_stock": info.availability.is_available_to_buy, **stock_of(info)}


def price_with_currency(info):
    """{"price", "currency"}, or nothing for a product the strategy gives no price (the published
    schemas let an item leave both out, not give them as null)."""
    if not info.price.exists:
        return {}
    return {"price": price_of(info), "currency": info.price.currency}
