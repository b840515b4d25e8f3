"""PostgreSQL: a search reads letters without their accents, as SQLite's index already does.

SQLite's FTS5 index (migration 0002) folds diacritics (`remove_diacritics 2`): "creme" finds
"Crème" and "crème" finds "Creme". PostgreSQL's 'simple' configuration kept them, so the same
search found nothing in the scale-out shape. Its search now reads text through the text search
configuration `catalog_search`: 'simple' with the `unaccent` dictionary first for the words
that are not plain ASCII, as PostgreSQL's own documentation of unaccent does it
(https://www.postgresql.org/docs/15/unaccent.html). `unaccent` ships with PostgreSQL (its
contrib, which Debian's and the official images' server packages include) and is a trusted
extension: a database owner can create it without being a superuser.

The generated column search_document (migration 0002) is made again with the new
configuration (PostgreSQL cannot change a generated column's expression in place), and its GIN
index without a pending list (migration 0005).

SQLite: nothing to do.
"""
from django.db import migrations

CONFIG = "catalog_search"
WORDS_WITH_NON_ASCII_LETTERS = "word, hword, hword_part, numword, numhword, hword_numpart"


def search_document(config):
    return f"""ALTER TABLE catalog_product ADD COLUMN search_document tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('{config}'::regconfig, coalesce(name, '')), 'A')
        || to_tsvector('{config}'::regconfig, coalesce(public_id, '') || ' ' || coalesce(description, '') || ' '
                                 || coalesce(tags::text, '') || ' ' || coalesce(materials::text, ''))
    ) STORED"""


def search_index():
    return "CREATE INDEX catalog_product_search ON catalog_product USING gin (search_document) WITH (fastupdate = off)"


def forward_statements(schema_editor):
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
    return [
        f"CREATE TEXT SEARCH CONFIGURATION {CONFIG} (COPY = simple)",
        f"ALTER TEXT SEARCH CONFIGURATION {CONFIG} ALTER MAPPING FOR {WORDS_WITH_NON_ASCII_LETTERS} "
        f"WITH {unaccent_dictionary(schema_editor)}, simple",
        "ALTER TABLE catalog_product DROP COLUMN search_document",  # and its index
        search_document(CONFIG),
        search_index(),
    ]


def unaccent_dictionary(schema_editor):
    """The extension's dictionary by its schema: a managed service may keep extensions in a schema
    of their own, outside the search path."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
                       "WHERE e.extname = 'unaccent'")
        (schema,) = cursor.fetchone()
    return f"{schema_editor.quote_name(schema)}.unaccent"


BACKWARD = [  # the extension stays: other schemas may use it
    "ALTER TABLE catalog_product DROP COLUMN search_document",
    search_document("simple"),
    search_index(),
    f"DROP TEXT SEARCH CONFIGURATION {CONFIG}",
]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in forward_statements(schema_editor):
            schema_editor.execute(statement)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0006_search_index_holds_visible_products")]

    operations = [migrations.RunPython(forward, backward)]
