"""Plain SQL on the hottest paths, loaded and written as the ORM would.

On the benchmark machine building an ORM query costs 100–300 µs, several times what SQLite
or PostgreSQL spends answering it (docs/performance.md), and every agent call of a session
runs a handful: find the session, append its audit event. Those paths, and the shop's own
hottest reads (catalog detail and search, the cart view), use fixed SQL instead, with values
converted exactly as the ORM converts them, so callers get the same Python values.

Statements are plain standard SQL, which SQLite and PostgreSQL (the databases check
agents_protocol.E009 accepts) both understand. (The shop keeps its own copy of
FieldValues in catalog/rows.py: the shop's apps import nothing from this app but its provider
interface.)
"""
import re
from functools import lru_cache
from weakref import WeakKeyDictionary

from django.db import DEFAULT_DB_ALIAS, connections

SQLITE_PLACEHOLDER = re.compile(r"(?<!%)%s")  # Django's own (FORMAT_QMARK_REGEX, sqlite3/base.py)


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


class ModelRows:
    """Instances of `model` from plain SQL selecting `columns` (every concrete column, in field order)."""

    def __init__(self, model, alias="t"):
        self.model = model
        self.values = FieldValues(*model._meta.concrete_fields)
        self.columns = ", ".join(f"{alias}.{field.column}" for field in self.values.fields)

    def load(self, connection, row):
        return self.model.from_db(connection.alias, None, self.values.convert(connection, row))

    def first(self, sql, params):
        """The first row of `sql` as an instance, or None."""
        connection = default_connection()
        row = read_one(connection, sql, params)
        return self.load(connection, row) if row is not None else None


def default_connection():
    """This thread's connection to the default database (not the module-level proxy)."""
    return connections[DEFAULT_DB_ALIAS]


def read_one(connection, statement, params=()):
    """The first row of `statement` (fixed SQL with Django's %s placeholders), or None.

    Read on the DB-API connection itself, as Django's cursor would read it (a failed health
    check reconnects, a broken transaction refuses, an error is Django's DatabaseError), without
    the cursor's wrappers: for a read of a few microseconds they cost as much again. The
    placeholders are translated for the backend once per statement (`native_placeholders`).
    While Django records queries (DEBUG, a test's query capture) or runs execute wrappers, the
    read goes through its cursor like any other statement, so those see it.
    """
    if connection.queries_logged or connection.execute_wrappers:
        with connection.cursor() as cursor:
            cursor.execute(statement, params or None)
            return cursor.fetchone()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_no_broken_transaction()
    with connection.wrap_database_errors:
        cursor = connection.connection.cursor()
        try:
            if params:
                cursor.execute(native_placeholders(connection.vendor, statement), params)
            else:
                cursor.execute(statement)
            return cursor.fetchone()
        finally:
            cursor.close()


class NativeCursor:
    """The DB-API cursor of the connection itself, taking fixed statements with Django's %s
    placeholders (translated once per statement, `native_placeholders`). Django's own cursor on
    SQLite translates them on every execute, with a regular expression over the whole statement:
    13 µs for the audit append's INSERT, more than SQLite takes to run it. Errors are the
    driver's; callers run it inside the connection's `wrap_database_errors`. On PostgreSQL it
    lacks the time zone loader Django's cursor registers: no statement run on it reads a timestamp."""

    def __init__(self, connection):
        self.vendor = connection.vendor
        self.cursor = connection.connection.cursor()

    def execute(self, statement, params):
        self.cursor.execute(native_placeholders(self.vendor, statement), params)

    @property
    def rowcount(self):
        return self.cursor.rowcount

    def fetchone(self):
        return self.cursor.fetchone()

    def close(self):
        self.cursor.close()


@lru_cache(maxsize=64)
def native_placeholders(vendor, statement):
    """`statement` as the backend's DB-API module takes it: Django's %s placeholders are
    sqlite3's ? (and %% a literal %), as Django's SQLite cursor translates them; psycopg takes
    them as they are."""
    if vendor != "sqlite":
        return statement
    return SQLITE_PLACEHOLDER.sub("?", statement).replace("%%", "%")


def insert(model, values):
    """INSERT one row of `model` from {field name: Python value}, prepared as the ORM prepares it."""
    connection = default_connection()
    statement, fields = _insert_statement(model, tuple(values), connection.vendor)
    prepared = [field.get_db_prep_save(values[field.name], connection) for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(statement, prepared)


@lru_cache(maxsize=32)
def _insert_statement(model, names, vendor):
    fields = [model._meta.get_field(name) for name in names]
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    columns = ", ".join(quote(field.column) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({placeholders})", fields
