"""Products read with plain SQL, loaded as select_related("category") would load them.

Used where the agent API is hottest (detail, search): compiling the equivalent ORM query, or
mapping a raw() query's columns, costs several times what the database spends answering it
(docs/performance.md). The SQL selects PRODUCT_COLUMNS first: every product column in field
order, then the category's name and slug. Each row's category is loaded with the id, name
and slug the API shows (its other fields are deferred: reading one costs a query). Columns
after those become attributes of the product under their names (`ranked.total` → `total`).
Values pass through the same converters the ORM applies (decimals, datetimes, JSON).
"""
from weakref import WeakKeyDictionary

from django.db import DEFAULT_DB_ALIAS, connections

from .models import Category, Product

PRODUCT_FIELDS = tuple(Product._meta.concrete_fields)
PRODUCT_COLUMNS = ", ".join(f"p.{field.column}" for field in PRODUCT_FIELDS) + ", c.name, c.slug"
CATEGORY_FIELD_NAMES = ("id", "name", "slug")

_converters_by_connection = WeakKeyDictionary()


def products(sql, params):
    connection = connections[DEFAULT_DB_ALIAS]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        extra_names = [column[0] for column in cursor.description[len(PRODUCT_FIELDS) + 2:]]
        fetched = cursor.fetchall()
    converters = _converters(connection)
    return [_product(connection, row, converters, extra_names) for row in fetched]


def _product(connection, row, converters, extra_names):
    values = list(row[: len(PRODUCT_FIELDS)])
    for index, column, column_converters in converters:
        for convert in column_converters:
            values[index] = convert(values[index], column, connection)
    product = Product.from_db(connection.alias, None, values)
    category_name, category_slug, *extras = row[len(PRODUCT_FIELDS):]
    product.category = Category.from_db(
        connection.alias, CATEGORY_FIELD_NAMES, [product.category_id, category_name, category_slug]
    )
    for name, value in zip(extra_names, extras):
        setattr(product, name, value)
    return product


def _converters(connection):
    """(index, column, converters) of the product columns that need converting, once per connection."""
    found = _converters_by_connection.get(connection)
    if found is None:
        found = []
        for index, field in enumerate(PRODUCT_FIELDS):
            column = field.get_col(Product._meta.db_table)
            column_converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            if column_converters:
                found.append((index, column, column_converters))
        _converters_by_connection[connection] = found
    return found
