"""Products read with plain SQL, loaded as select_related("category") would load them.

Used where the agent API is hottest (detail, search): compiling the equivalent ORM query, or
mapping a raw() query's columns, costs several times what the database spends answering it
(docs/performance.md). The SQL selects PRODUCT_COLUMNS first: every product column in field
order, then the category's name and slug. Each row's category is loaded with the id, name
and slug the API shows (its other fields are deferred: reading one costs a query). Columns
after those become attributes of the product under their names (`ranked.total` → `total`).

Values pass through the converters the ORM applies (decimals, datetimes, JSON): FieldValues
does that for any plain SQL read of model fields.
"""
from weakref import WeakKeyDictionary

from django.db import DEFAULT_DB_ALIAS, connections

from .models import Category, Product


class FieldValues:
    """Converts database values of `fields`, in that order, as the ORM converts them on load."""

    def __init__(self, *fields):
        self.fields = fields
        self._converters_by_connection = WeakKeyDictionary()

    def convert(self, connection, row):
        values = list(row)
        for index, column, converters in self._converters(connection):
            for convert in converters:
                values[index] = convert(values[index], column, connection)
        return values

    def _converters(self, connection):
        """(index, column, converters) of the fields that need converting, worked out once per connection."""
        found = self._converters_by_connection.get(connection)
        if found is None:
            found = []
            for index, field in enumerate(self.fields):
                column = field.get_col(field.model._meta.db_table)
                converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
                if converters:
                    found.append((index, column, converters))
            self._converters_by_connection[connection] = found
        return found


PRODUCT_VALUES = FieldValues(*Product._meta.concrete_fields)
PRODUCT_COLUMNS = ", ".join(f"p.{field.column}" for field in PRODUCT_VALUES.fields) + ", c.name, c.slug"
CATEGORY_FIELD_NAMES = ("id", "name", "slug")


def products(sql, params):
    connection = connections[DEFAULT_DB_ALIAS]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        extra_names = [column[0] for column in cursor.description[len(PRODUCT_VALUES.fields) + 2:]]
        fetched = cursor.fetchall()
    return [_product(connection, row, extra_names) for row in fetched]


def _product(connection, row, extra_names):
    field_count = len(PRODUCT_VALUES.fields)
    product = Product.from_db(connection.alias, None, PRODUCT_VALUES.convert(connection, row[:field_count]))
    category_name, category_slug, *extras = row[field_count:]
    product.category = Category.from_db(
        connection.alias, CATEGORY_FIELD_NAMES, [product.category_id, category_name, category_slug]
    )
    for name, value in zip(extra_names, extras):
        setattr(product, name, value)
    return product
