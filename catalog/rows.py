"""Products read with plain SQL, loaded as select_related("category") would load them.

Used where the agent API is hottest (detail, search): compiling the equivalent ORM query, or
mapping a raw() query's columns, costs several times what the database spends answering it
(docs/performance.md). The SQL selects the `sql` of a ProductColumns first (ALL the product's
columns, or the SUMMARY an answer listing products shows; the others are deferred), then the
category's name and slug. Each row's category is loaded with the id, name and slug the API
shows (its other fields are deferred too: reading one costs a query). Columns after those
become attributes of the product under their names (`ranked.total` → `total`).

Values pass through the converters the ORM applies (decimals, datetimes, JSON): FieldValues
does that for any plain SQL read of model fields. The shop's fixed statements on its hottest
paths (these reads, the catalog's version, the cart's) run through run_statement.
"""
import re
from functools import lru_cache
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


class ProductColumns:
    """Some of a product's columns (`sql`: the select list), then its category's name and slug."""

    def __init__(self, *names):
        fields = [Product._meta.get_field(name) for name in names]
        self.values = FieldValues(*fields)
        self.attnames = [field.attname for field in fields]
        self.sql = ", ".join(f"p.{field.column}" for field in fields) + ", c.name, c.slug"

    def load(self, connection, row):
        field_count = len(self.attnames)
        values = self.values.convert(connection, row[:field_count])
        product = Product.from_db(connection.alias, self.attnames, values)
        category_name, category_slug = row[field_count:field_count + 2]
        product.category = Category.from_db(
            connection.alias, CATEGORY_FIELD_NAMES, [product.category_id, category_name, category_slug]
        )
        return product


CATEGORY_FIELD_NAMES = ("id", "name", "slug")
ALL = ProductColumns(*(field.name for field in Product._meta.concrete_fields))
# What a search or browse answer shows of each product (the rest stays deferred).
SUMMARY = ProductColumns("id", "public_id", "name", "slug", "price", "currency", "stock", "category", "is_active")


def products(sql, params, columns=ALL):
    """The products `sql` selects (`columns.sql` first, then any extra columns)."""
    connection = connections[DEFAULT_DB_ALIAS]
    description, fetched = run_statement(sql, params, described_rows)
    extra_names = [column[0] for column in description[len(columns.attnames) + 2:]]
    loaded = []
    for row in fetched:
        product = columns.load(connection, row)
        for name, value in zip(extra_names, row[len(columns.attnames) + 2:]):
            setattr(product, name, value)
        loaded.append(product)
    return loaded


def run_statement(sql, params, result):
    """`result(cursor)` once fixed `sql` (with Django's %s placeholders) has run on the default database.

    It runs on the DB-API connection itself, as Django's cursor would run it (a failed health
    check reconnects, a broken transaction refuses, an error is Django's DatabaseError), inside
    whatever transaction is open, without the cursor's wrappers: for a statement of a few
    microseconds they cost several times as much (docs/performance.md). While Django records
    queries (DEBUG, a test's query capture) or runs execute wrappers, Django's cursor runs it, so
    they see every statement. (agents_protocol.core.sql.read_one is the app's own: the shop
    imports nothing of the app but its provider interface.)
    """
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.queries_logged or connection.execute_wrappers:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return result(cursor)
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_no_broken_transaction()
    with connection.wrap_database_errors:
        cursor = connection.connection.cursor()
        try:
            cursor.execute(native_placeholders(connection.vendor, sql), params)
            return result(cursor)
        finally:
            cursor.close()


def first_row(cursor):
    return cursor.fetchone()


def all_rows(cursor):
    return cursor.fetchall()


def described_rows(cursor):
    return cursor.description, cursor.fetchall()


def changed_rows(cursor):
    return cursor.rowcount


SQLITE_PLACEHOLDER = re.compile(r"(?<!%)%s")  # Django's own (FORMAT_QMARK_REGEX, sqlite3/base.py)


@lru_cache(maxsize=64)
def native_placeholders(vendor, sql):
    """`sql` as the backend's DB-API module takes it: sqlite3 takes ? for Django's %s (and % for
    %%), as Django's SQLite cursor translates them; psycopg takes them as they are."""
    if vendor != "sqlite":
        return sql
    return SQLITE_PLACEHOLDER.sub("?", sql).replace("%%", "%")
