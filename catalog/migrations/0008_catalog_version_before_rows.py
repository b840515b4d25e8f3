"""On PostgreSQL, the catalog's version token is replaced before a statement changes its rows,
not after (migration 0003's triggers, now BEFORE … FOR EACH STATEMENT).

Replaced after, a transaction locked a product row and then the one version row; two checkouts
confirming at once, each taking the stock of its lines product by product, could each hold a
product the other needed next while one also held the version row: PostgreSQL found the
deadlock and refused one of them. Replaced before, every transaction that writes the catalog
takes the version row first, and product rows only after it: one lock order for all. SQLite,
one writer at a time, keeps its row triggers.
"""
from django.db import migrations

TABLES = ("catalog_product", "catalog_category")


def triggers(when):
    return [f"DROP TRIGGER {table}_version ON {table}" for table in TABLES] + [
        f"""CREATE TRIGGER {table}_version {when} INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table}
            FOR EACH STATEMENT EXECUTE FUNCTION catalog_version_change()"""
        for table in TABLES
    ]


def replace_before(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in triggers("BEFORE"):
            schema_editor.execute(statement)


def replace_after(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in triggers("AFTER"):
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0007_search_ignores_accents_on_postgresql")]

    operations = [migrations.RunPython(replace_before, replace_after)]
