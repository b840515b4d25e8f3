"""PostgreSQL: the search index (migration 0002) takes every change into its entry tree at once.

With GIN's default `fastupdate = on`, new and changed products go to a pending list that every
search scans whole until a VACUUM (or the list passing gin_pending_list_limit) merges it. After
a catalog import that list holds thousands of products, and a search for a 1% term at 100k
products took 1.5 ms in the index instead of 0.26 ms (docs/performance.md, Latest results): search times then
depend on when autovacuum last ran. A shop's catalog is read far more often than it is written,
so the index pays at write time instead. The list left from before is merged here.

SQLite's FTS5 index has no such list: nothing to do there.
"""
from django.db import migrations

INDEX = "catalog_product_search"


def merge_every_change_at_once(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER INDEX {INDEX} SET (fastupdate = off)")
        schema_editor.execute(f"SELECT gin_clean_pending_list('{INDEX}'::regclass)")


def keep_a_pending_list(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER INDEX {INDEX} RESET (fastupdate)")


class Migration(migrations.Migration):
    dependencies = [("catalog", "0004_product_variants")]

    operations = [migrations.RunPython(merge_every_change_at_once, keep_a_pending_list)]
