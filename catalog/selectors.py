"""Read-only catalog queries: what shoppers and agents are allowed to see, and in which order.

Every function returns fully loaded rows (category included), so callers never trigger
extra queries per product.
"""
from dataclasses import dataclass
from decimal import Decimal

from django.db import connection
from django.db.models import Count, Exists, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce

from . import read_cache, search
from .models import Category, Product

SORT_ORDERINGS = {
    "price_asc": ("offered_price", "name", "id"),
    "price_desc": ("-offered_price", "name", "id"),
    "newest": ("-created", "-id"),
}
SORTS = tuple(SORT_ORDERINGS)
DEFAULT_SORT = "newest"


class UnknownCategory(Exception):
    """No category has the requested slug."""

    def __init__(self, slug):
        super().__init__(f"Unknown category: {slug!r}")
        self.slug = slug


def visible_products():
    """Active products as listings show them: variants appear only on their parent's page."""
    return Product.objects.active().filter(variant_of=None).select_related("category")


@read_cache.cached(read_cache.page_length)
def search_products(q, page, limit):
    """Active products matching every term of `q`, name matches first (how terms match and
    rank: catalog/search.py). An empty query matches everything, in name order.

    The database's full-text index does the matching: FTS5 on SQLite (the embedded default),
    a GIN index on PostgreSQL (scale-out).
    """
    if not q.split():
        return paginate(visible_products().order_by("name", "id"), page, limit)
    offset = page_offset(page, limit)
    terms = search.searchable_terms(q)
    if not terms:
        return [], 0
    if connection.vendor == "postgresql":
        return search.postgresql_search(terms, offset, limit)
    return search.sqlite_search(terms, offset, limit)


@read_cache.cached(read_cache.page_length)
def browse_products(category, sort, page, limit):
    """Active products, optionally of one category (a slug), in one of SORTS."""
    selected = get_category(category) if category else None
    return paginate(products_in(selected, sort), page, limit)


def products_in(category, sort):
    """The ordered queryset behind browse_products, for callers that paginate themselves."""
    if sort not in SORT_ORDERINGS:
        raise ValueError(f"Unknown sort {sort!r}; use one of {', '.join(SORTS)}.")
    products = visible_products()
    if category is not None:
        products = products.filter(category=category)
    if sort.startswith("price"):
        products = products.annotate(offered_price=offered_price())
    return products.order_by(*SORT_ORDERINGS[sort])


def offered_price():
    """The price a product is sorted by: variant_totals' rule as an expression (the cheapest
    active variant in stock, else the cheapest active one), or its own price without variants."""
    return Coalesce(_cheapest_variant(stock__gt=0), _cheapest_variant(), F("price"))


def _cheapest_variant(**conditions):
    variants = Product.objects.filter(variant_of=OuterRef("pk"), is_active=True, **conditions)
    return Subquery(variants.order_by("price").values("price")[:1])


def paginate(queryset, page, limit):
    """Return (rows of page `page`, total row count); pages start at 1."""
    offset = page_offset(page, limit)
    return list(queryset[offset : offset + limit]), queryset.count()


def page_offset(page, limit):
    if page < 1 or limit < 1:
        raise ValueError("page and limit must be positive integers.")
    return (page - 1) * limit


def get_category(slug):
    if "\x00" in slug:  # no category's slug; PostgreSQL refuses text holding NUL
        raise UnknownCategory(slug)
    try:
        return Category.objects.get(slug=slug)
    except Category.DoesNotExist:
        raise UnknownCategory(slug) from None


@read_cache.cached()
def get_active_product(public_id):
    """The product for sale with this public id (and its category), or None. A variant is found
    by its own id, while its parent is active; `has_variants` says whether the product has
    variants (active or not), which makes it sold only as one of them."""
    any_variant = Product.objects.filter(variant_of=OuterRef("pk"))
    products = Product.objects.active().select_related("category").annotate(has_variants=Exists(any_variant))
    return products.filter(public_id=public_id).first()


@dataclass(frozen=True)
class VariantTotals:
    """What a product with variants offers, from its active variants: their stock together, and
    the price to show (the cheapest in stock, else the cheapest; None when none is active)."""

    stock: int
    price: Decimal | None


def variant_totals(products):
    """{product id: VariantTotals} for those of `products` that have variants (one plain SQL read,
    which every uncached search and browse page makes: the ORM's aggregate query costs several
    times as much to build): a product with variants is sold only as one of them, so its own
    stock and price say nothing."""
    ids = [product.pk for product in products]
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(VARIANT_TOTALS.format(", ".join(["%s"] * len(ids))), ids)
        found = cursor.fetchall()
    return {
        parent_id: VariantTotals(int(stock or 0), loaded_price(_first_known(in_stock_price, lowest_price)))
        for parent_id, stock, in_stock_price, lowest_price in found
    }


VARIANT_TOTALS = """
    SELECT v.variant_of_id, SUM(CASE WHEN v.is_active THEN v.stock ELSE 0 END),
           MIN(CASE WHEN v.is_active AND v.stock > 0 THEN v.price END), MIN(CASE WHEN v.is_active THEN v.price END)
    FROM catalog_product v WHERE v.variant_of_id IN ({}) GROUP BY v.variant_of_id
"""
PRICE = Product._meta.get_field("price")
CENTS = Decimal(1).scaleb(-PRICE.decimal_places)


def loaded_price(value):
    """A price as the database driver gives it (an int, a float or a Decimal, by backend), as
    the Decimal the ORM loads."""
    return None if value is None else PRICE.to_python(value).quantize(CENTS)


def show_what_variants_offer(products):
    """Set each of `products` that has variants to the stock and price its active variants offer
    (variant_totals), for an answer or a page to show: instances read for this request alone
    (never one kept in the read cache), never saved."""
    by_id = {product.pk: product for product in products}
    for product_id, totals in variant_totals(products).items():
        product = by_id[product_id]
        product.stock = totals.stock
        if totals.price is not None:
            product.price = totals.price
    return products


def _first_known(*values):
    return next((value for value in values if value is not None), None)


def active_variants(product):
    """The product's active variants, cheapest first."""
    return list(product.variants.active().order_by("price", "name", "id"))


def get_active_product_by_slug(slug):
    """The product page's product: a listed one, or a variant (its page names its parent)."""
    return Product.objects.active().select_related("category", "variant_of").filter(slug=slug).first()


def list_categories():
    """All categories in display order, each with `product_count` of its listed active products."""
    active_products = Count("products", filter=Q(products__is_active=True, products__variant_of=None))
    # Aggregating queries ignore Meta.ordering, so the order is spelled out.
    categories = Category.objects.annotate(product_count=active_products)
    return list(categories.order_by("position", "name"))


def products_with_variants(chunk_size=500):
    """Every listed product for sale with its active variants (cheapest first), as (product,
    variants), in id order, a product with variants showing what they offer (as
    show_what_variants_offer). A chunk of products and one query for their variants at a time
    (keyset pagination), so the whole catalog is read in memory that does not grow with it."""
    any_variant = Product.objects.filter(variant_of=OuterRef("pk"))
    listed = visible_products().annotate(has_variants=Exists(any_variant)).order_by("pk")
    last_pk = 0
    while chunk := list(listed.filter(pk__gt=last_pk)[:chunk_size]):
        variants = {}
        for variant in Product.objects.active().filter(variant_of__in=chunk).order_by("price", "name", "id"):
            variants.setdefault(variant.variant_of_id, []).append(variant)
        for product in chunk:
            offered = variants.get(product.pk, [])
            if offered:
                product.stock = sum(variant.stock for variant in offered)
                product.price = min((v.price for v in offered if v.stock > 0), default=offered[0].price)
            yield product, offered
            # Read, the image is a FieldFile referring back to the product: a cycle that only the
            # garbage collector frees, many chunks later. Its name in its place frees both at once.
            product.image = product.image.name
        last_pk = chunk[-1].pk
