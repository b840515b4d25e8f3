"""The full-text index search_products reads (catalog/search.py), one per database vendor.

SQLite: the FTS5 table catalog_product_fts (rowid = product id) with the product's name,
public id, description, category name, tags and materials, filled from the existing rows
and kept in step by triggers on catalog_product (insert, update of those columns, delete)
and on catalog_category (rename). Stock and price updates do not touch it.
A later migration that makes SQLite rebuild catalog_product (most column changes do) drops
these triggers with the old table: it must create them again (tests/test_search_sqlite.py
fails when they are missing).

PostgreSQL: a GIN index on to_tsvector('simple', name, public id, description, tags,
materials): exactly the SearchVector catalog/search.py filters on.

The index is not part of the models' state: makemigrations knows nothing of it.
"""
from django.db import migrations

FTS_COLUMNS = "name, public_id, description, category, tags, materials"

SQLITE_FORWARD = [
    f"""CREATE VIRTUAL TABLE catalog_product_fts USING fts5(
        {FTS_COLUMNS}, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')""",
    f"""INSERT INTO catalog_product_fts(rowid, {FTS_COLUMNS})
        SELECT p.id, p.name, p.public_id, p.description, c.name, p.tags, p.materials
        FROM catalog_product p JOIN catalog_category c ON c.id = p.category_id""",
    f"""CREATE TRIGGER catalog_product_fts_insert AFTER INSERT ON catalog_product BEGIN
        INSERT INTO catalog_product_fts(rowid, {FTS_COLUMNS})
        SELECT NEW.id, NEW.name, NEW.public_id, NEW.description, c.name, NEW.tags, NEW.materials
        FROM catalog_category c WHERE c.id = NEW.category_id;
    END""",
    """CREATE TRIGGER catalog_product_fts_update
    AFTER UPDATE OF name, public_id, description, category_id, tags, materials ON catalog_product BEGIN
        UPDATE catalog_product_fts SET
            name = NEW.name, public_id = NEW.public_id, description = NEW.description,
            category = (SELECT name FROM catalog_category WHERE id = NEW.category_id),
            tags = NEW.tags, materials = NEW.materials
        WHERE rowid = NEW.id;
    END""",
    """CREATE TRIGGER catalog_product_fts_delete AFTER DELETE ON catalog_product BEGIN
        DELETE FROM catalog_product_fts WHERE rowid = OLD.id;
    END""",
    """CREATE TRIGGER catalog_category_fts_rename AFTER UPDATE OF name ON catalog_category BEGIN
        UPDATE catalog_product_fts SET category = NEW.name
        WHERE rowid IN (SELECT id FROM catalog_product WHERE category_id = NEW.id);
    END""",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER catalog_category_fts_rename",
    "DROP TRIGGER catalog_product_fts_delete",
    "DROP TRIGGER catalog_product_fts_update",
    "DROP TRIGGER catalog_product_fts_insert",
    "DROP TABLE catalog_product_fts",
]

POSTGRES_INDEX = "catalog_product_search"


def postgres_index():
    from django.contrib.postgres.indexes import GinIndex
    from django.contrib.postgres.search import SearchVector

    document = SearchVector("name", "public_id", "description", "tags", "materials", config="simple")
    return GinIndex(document, name=POSTGRES_INDEX)


def create_index(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for statement in SQLITE_FORWARD:
            schema_editor.execute(statement)
    elif vendor == "postgresql":
        schema_editor.add_index(apps.get_model("catalog", "Product"), postgres_index())


def drop_index(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for statement in SQLITE_BACKWARD:
            schema_editor.execute(statement)
    elif vendor == "postgresql":
        schema_editor.remove_index(apps.get_model("catalog", "Product"), postgres_index())


class Migration(migrations.Migration):
    dependencies = [("catalog", "0001_initial")]

    operations = [migrations.RunPython(create_index, drop_index)]
