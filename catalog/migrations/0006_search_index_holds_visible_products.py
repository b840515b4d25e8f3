"""SQLite: the FTS5 index (migration 0002) holds exactly the products a search may return.

Those are visible_products() (catalog/selectors.py): active, and not a variant (a variant is
shown on its parent's page). The index used to hold every product, so a search joined each
match to its product to filter the rest out and counted the survivors with a window over all
of them: 0.4 ms of the 2.4 ms a 1% term took at 100k products (docs/performance.md, Latest
results). Now the index's own count is the total. The triggers add a product to the index when it becomes
visible and take it out when it stops being visible, as well as following every change of the
indexed text; the products that are not visible now leave the index here. A later migration
that rebuilds catalog_product on SQLite must create these two triggers again, with 0002's
delete and category rename triggers.

PostgreSQL's search filters in the statement itself (its GIN index covers the whole table).
"""
from django.db import migrations

FTS_COLUMNS = "name, public_id, description, category, tags, materials"
VISIBLE = "{row}.is_active AND {row}.variant_of_id IS NULL"  # visible_products()

FORWARD = [
    "DROP TRIGGER catalog_product_fts_insert",
    "DROP TRIGGER catalog_product_fts_update",
    f"""CREATE TRIGGER catalog_product_fts_insert AFTER INSERT ON catalog_product
    WHEN {VISIBLE.format(row="NEW")} BEGIN
        INSERT INTO catalog_product_fts(rowid, {FTS_COLUMNS})
        SELECT NEW.id, NEW.name, NEW.public_id, NEW.description, c.name, NEW.tags, NEW.materials
        FROM catalog_category c WHERE c.id = NEW.category_id;
    END""",
    f"""CREATE TRIGGER catalog_product_fts_update
    AFTER UPDATE OF name, public_id, description, category_id, tags, materials, is_active, variant_of_id
    ON catalog_product BEGIN
        DELETE FROM catalog_product_fts WHERE rowid = OLD.id;
        INSERT INTO catalog_product_fts(rowid, {FTS_COLUMNS})
        SELECT NEW.id, NEW.name, NEW.public_id, NEW.description, c.name, NEW.tags, NEW.materials
        FROM catalog_category c WHERE c.id = NEW.category_id AND {VISIBLE.format(row="NEW")};
    END""",
    f"""DELETE FROM catalog_product_fts
    WHERE rowid IN (SELECT id FROM catalog_product p WHERE NOT ({VISIBLE.format(row="p")}))""",
]

# Migration 0002's triggers, and every product in the index again.
BACKWARD = [
    "DROP TRIGGER catalog_product_fts_insert",
    "DROP TRIGGER catalog_product_fts_update",
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
    f"""INSERT INTO catalog_product_fts(rowid, {FTS_COLUMNS})
    SELECT p.id, p.name, p.public_id, p.description, c.name, p.tags, p.materials
    FROM catalog_product p JOIN catalog_category c ON c.id = p.category_id
    WHERE NOT ({VISIBLE.format(row="p")}) AND p.id NOT IN (SELECT rowid FROM catalog_product_fts)""",
]


def index_visible_products_only(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in FORWARD:
            schema_editor.execute(statement)


def index_every_product(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0005_search_index_without_pending_list")]

    operations = [migrations.RunPython(index_visible_products_only, index_every_product)]
