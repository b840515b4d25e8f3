"""A deterministic synthetic catalog for the benchmark, grown with bulk_create.

    DATA_DIR=… python -m bench.synthetic_catalog 10000     # add products until there are 10,000

Product i is always the same product: one of 10 categories and forms, one of 100 glazes
(each a made-up single word, none the prefix of another), so SEARCH_TERM, a glaze, matches
1% of any catalog of a multiple of 100 products, in the name and the description.
Stock is large: the benchmark's carts never run out.
"""
import os
import sys
from decimal import Decimal

FIRST = ("amber", "basalt", "cedar", "dune", "ember", "fjord", "glacier", "heath", "iris", "jade")
SECOND = ("ash", "bloom", "crest", "drift", "flint", "glow", "haze", "mist", "rain", "shade")
GLAZES = tuple(first + second for first in FIRST for second in SECOND)
SEARCH_TERM = GLAZES[42]  # "embercrest": 1% of the products
FORMS = (  # (category, form)
    ("Mugs", "Mug"), ("Bowls", "Bowl"), ("Plates", "Plate"), ("Vases", "Vase"), ("Planters", "Planter"),
    ("Teaware", "Teapot"), ("Serveware", "Pitcher"), ("Jars", "Jar"), ("Platters", "Platter"), ("Cups", "Cup"),
)
CLAYS = ("stoneware", "porcelain", "terracotta", "earthenware")
SIZES = ("small", "medium", "large", "tall", "wide", "shallow")
BATCH = 2000


def product_fields(index, category_ids):
    glaze = GLAZES[index % len(GLAZES)]
    category, form = FORMS[(index // len(GLAZES)) % len(FORMS)]
    clay = CLAYS[index % len(CLAYS)]
    size = SIZES[index % len(SIZES)]
    return {
        "public_id": f"p{index:06d}",
        "slug": f"p{index:06d}",
        "name": f"{glaze.capitalize()} {form} {index:06d}",
        "description": f"A {size} {form.lower()} thrown in {clay} and glazed in {glaze}, fired twice in the kiln.",
        "price": Decimal(10 + index % 90),
        "stock": 1_000_000,
        "category_id": category_ids[category],
        "materials": [clay],
        "tags": [form.lower(), size],
    }


def grow_catalog(count):
    """Add products until the catalog holds `count`; returns how many were added.

    PostgreSQL then refreshes its planner statistics, as autovacuum would a little later.
    """
    from django.db import connection, transaction

    from catalog.models import Category, Product

    with transaction.atomic():
        category_ids = {}
        for position, (name, _) in enumerate(FORMS):
            category, _ = Category.objects.get_or_create(
                name=name, defaults={"slug": name.lower(), "position": position}
            )
            category_ids[name] = category.pk
        start = Product.objects.count()
        for first in range(start, count, BATCH):
            Product.objects.bulk_create(
                Product(**product_fields(index, category_ids)) for index in range(first, min(first + BATCH, count))
            )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE catalog_product")
    return max(0, count - start)


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "acme.settings")
    import django

    django.setup()
    print(f"added {grow_catalog(int(sys.argv[1]))} products")
