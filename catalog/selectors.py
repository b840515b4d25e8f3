"""Read-only catalog queries: what shoppers and agents are allowed to see, and in which order.

Every function returns fully loaded rows (category included), so callers never trigger
extra queries per product.
"""
from django.db.models import Case, Count, IntegerField, Q, Value, When

from .models import Category, Product

SORT_ORDERINGS = {
    "price_asc": ("price", "name", "id"),
    "price_desc": ("-price", "name", "id"),
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
    return Product.objects.active().select_related("category")


def search_products(q, page, limit):
    """Active products matching every term of `q`; name matches rank first.

    A term matches when it appears (case-insensitively) in the name, description,
    category name, public id, tags or materials. An empty query matches everything.
    """
    terms = q.split()
    products = visible_products()
    for term in terms:
        products = products.filter(_matches_anywhere(term))
    ranked = products.annotate(name_hits=_count_name_hits(terms))
    return paginate(ranked.order_by("-name_hits", "name", "id"), page, limit)


def _matches_anywhere(term):
    return (
        Q(name__icontains=term)
        | Q(description__icontains=term)
        | Q(category__name__icontains=term)
        | Q(public_id__icontains=term)
        | Q(tags__icontains=term)
        | Q(materials__icontains=term)
    )


def _count_name_hits(terms):
    hits = [
        Case(When(name__icontains=term, then=Value(1)), default=Value(0), output_field=IntegerField())
        for term in terms
    ]
    return sum(hits, start=Value(0, output_field=IntegerField()))


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
    return products.order_by(*SORT_ORDERINGS[sort])


def paginate(queryset, page, limit):
    """Return (rows of page `page`, total row count); pages start at 1."""
    if page < 1 or limit < 1:
        raise ValueError("page and limit must be positive integers.")
    offset = (page - 1) * limit
    return list(queryset[offset : offset + limit]), queryset.count()


def get_category(slug):
    try:
        return Category.objects.get(slug=slug)
    except Category.DoesNotExist:
        raise UnknownCategory(slug) from None


def get_active_product(public_id):
    return visible_products().filter(public_id=public_id).first()


def get_active_product_by_slug(slug):
    return visible_products().filter(slug=slug).first()


def list_categories():
    """All categories in display order, each with `product_count` of its active products."""
    active_products = Count("products", filter=Q(products__is_active=True))
    # Aggregating queries ignore Meta.ordering, so the order is spelled out.
    categories = Category.objects.annotate(product_count=active_products)
    return list(categories.order_by("position", "name"))
