"""Products read with plain SQL, loaded as select_related("category") would load them.

Used where the agent API is hottest (detail, search): compiling the equivalent ORM query costs
several times what the database spends answering it (docs/performance.md). The SQL selects
PRODUCT_COLUMNS; each row's category is loaded with the id, name and slug the API shows (its
other fields are deferred: reading one costs a query).
"""
from .models import Category, Product

PRODUCT_COLUMNS = "p.*, c.name AS category_name, c.slug AS category_slug"  # p: catalog_product, c: its category


def products(sql, params):
    rows = Product.objects.raw(sql, params)
    loaded = list(rows)
    for product in loaded:
        product.category = Category.from_db(
            rows.db, ["id", "name", "slug"], [product.category_id, product.category_name, product.category_slug]
        )
    return loaded
