"""The full-text index search_products reads (catalog/search.py), one per database vendor.

SQLite: the FTS5 table catalog_product_fts (rowid = product id) with the product's name,
public id, description, category name, tags and materials, filled from the existing rows
and kept in step by triggers on catalog_product (insert, update of those columns, delete)
and on catalog_category (rename). Stock and price updates do not touch it.
A later migration that makes SQLite rebuild catalog_product (most column changes do) drops
these triggers with the old table: it must create them again (tests/test_search_index.py
fails when they are missing), the insert and update triggers as migration 0006 replaced them
(the index holds the visible products only).

PostgreSQL: a stored generated column, catalog_product.search_document, the tsvector
('simple' configuration) of the name with weight A and of the public id, description, tags and
materials with weight D, and a GIN index on it. PostgreSQL refuses to change the type of a
column a generated column reads: a later migration that does must drop search_document first
and add it again.

Neither is part of the models' state (Product has no search_document field): makemigrations
knows nothing of them, and Django never writes the generated column.
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

POSTGRES_FORWARD = [
    """ALTER TABLE catalog_product ADD COLUMN search_document tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', coalesce(name, '')), 'A')
        || to_tsvector('simple', coalesce(public_id, '') || ' ' || coalesce(description, '') || ' '
                                 || coalesce(tags::text, '') || ' ' || coalesce(materials::text, ''))
    ) STORED""",
    "CREATE INDEX catalog_product_search ON catalog_product USING gin (search_document)",
]
POSTGRES_BACKWARD = ["ALTER TABLE catalog_product DROP COLUMN search_document"]  # and its index


STATEMENTS = {  # vendor: (forward, backward)
    "sqlite": (SQLITE_FORWARD, SQLITE_BACKWARD),
    "postgresql": (POSTGRES_FORWARD, POSTGRES_BACKWARD),
}


def create_index(apps, schema_editor):
    for statement in STATEMENTS[schema_editor.connection.vendor][0]:
        schema_editor.execute(statement)


def drop_index(apps, schema_editor):
    for statement in STATEMENTS[schema_editor.connection.vendor][1]:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0001_initial")]

    operations = [migrations.RunPython(create_index, drop_index)]
