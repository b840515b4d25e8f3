"""The catalog's version token, which the catalog read cache checks (catalog/read_cache.py).

One row in catalog_version holds a random token that triggers replace whenever a product or a
category is inserted, updated or deleted, in the same transaction as the change. A worker that
reads the token before a catalog read and finds the one it cached under knows the catalog is
exactly as it was. The token is random rather than a counter so that a rolled-back change
cannot hand a later, different change the number its results were cached under.

SQLite has only row triggers; PostgreSQL fires once per statement, TRUNCATE included (Django's
flush truncates). Like migration 0002's index, neither is part of the models' state; a later
migration that makes SQLite rebuild catalog_product or catalog_category drops these triggers
with the old table and must create them again (tests/test_catalog_read_cache.py fails when they
are missing).
"""
from django.db import migrations

TABLES = ("catalog_product", "catalog_category")
EVENTS = ("INSERT", "UPDATE", "DELETE")

CREATE_TABLE = [
    "CREATE TABLE catalog_version (id integer PRIMARY KEY CHECK (id = 1), token varchar(32) NOT NULL)",
]

SQLITE_FORWARD = CREATE_TABLE + [
    "INSERT INTO catalog_version (id, token) VALUES (1, lower(hex(randomblob(16))))",
] + [
    f"""CREATE TRIGGER {table}_version_{event.lower()} AFTER {event} ON {table} BEGIN
        UPDATE catalog_version SET token = lower(hex(randomblob(16)));
    END"""
    for table in TABLES for event in EVENTS
]
SQLITE_BACKWARD = [f"DROP TRIGGER {table}_version_{event.lower()}" for table in TABLES for event in EVENTS] + [
    "DROP TABLE catalog_version",
]

POSTGRES_FORWARD = CREATE_TABLE + [
    "INSERT INTO catalog_version (id, token) VALUES (1, md5(random()::text || clock_timestamp()::text))",
    """CREATE FUNCTION catalog_version_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE catalog_version SET token = md5(random()::text || clock_timestamp()::text);
        RETURN NULL;
    END $$""",
] + [
    f"""CREATE TRIGGER {table}_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table}
        FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_change()"""
    for table in TABLES
]
POSTGRES_BACKWARD = [f"DROP TRIGGER {table}_version ON {table}" for table in TABLES] + [
    "DROP FUNCTION catalog_version_change()",
    "DROP TABLE catalog_version",
]

STATEMENTS = {  # vendor: (forward, backward)
    "sqlite": (SQLITE_FORWARD, SQLITE_BACKWARD),
    "postgresql": (POSTGRES_FORWARD, POSTGRES_BACKWARD),
}


def create_version(apps, schema_editor):
    for statement in STATEMENTS[schema_editor.connection.vendor][0]:
        schema_editor.execute(statement)


def drop_version(apps, schema_editor):
    for statement in STATEMENTS[schema_editor.connection.vendor][1]:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0002_product_search_index")]

    operations = [migrations.RunPython(create_version, drop_version)]
