"""Full-text product search on an index, one code path per database vendor.

Both paths read a query the same way. Terms are separated by whitespace and every term must
match (terms without a letter or digit are ignored). Accents do not count: "creme" finds
"Crème" and "crème" finds "Creme". A term matches the words that start
with it — "mug" finds "Mugs", "stone" finds "stoneware" — in the product's name, public id,
description, tags, materials or category name; a term of several words ("cup-7") matches
them in a row. Results rank by how many terms match in the name (name matches first), then
by relevance (bm25 on SQLite, ts_rank on PostgreSQL), then by name and id.

SQLite (the embedded default): the FTS5 table `catalog_product_fts` of migration 0002, kept in
step with products and category names by triggers, holding the visible products only
(migration 0006). PostgreSQL (scale-out): the generated tsvector column `search_document` of
the product's own text under a GIN index (migrations 0002, 0005 and 0007); category names are
matched first, in the small category table.
"""
import re

from django.db import connection

from .models import Category, Product

WORD = re.compile(r"[^\W_]+")

# SQLite: bm25 weight of each FTS5 column, in the table's order: name, public_id,
# description, category, tags, materials.
BM25_WEIGHTS = (10.0, 5.0, 1.0, 2.0, 2.0, 2.0)

# PostgreSQL: the generated column search_document (migrations 0002 and 0007, not a model field),
# the name's words with weight A and the rest of the product's text with weight D, under a GIN
# index, in the text search configuration of migration 0007: 'simple' without accents.
POSTGRES_CONFIG = "catalog_search"
# A term's operand (_tsquery_term) as a tsquery of that configuration.
TSQUERY = f"to_tsquery('{POSTGRES_CONFIG}', %s)"


# What a search answer shows of each product (its other fields stay deferred), then its category's.
SUMMARY = ("p.id, p.public_id, p.name, p.slug, p.price, p.currency, p.stock, p.category_id, p.is_active, "
           "c.name AS category_name, c.slug AS category_slug")
CATEGORY_FIELDS = ["id", "name", "slug"]


def found_products(sql, params):
    """The products a search statement selects (SUMMARY, then `total`) through raw(), each with
    the category the answer names: loaded with the id, name and slug the statement read (its
    other fields deferred, as raw() defers the product's)."""
    products = list(Product.objects.raw(sql, params))
    for product in products:
        product.category = Category.from_db(
            connection.alias, CATEGORY_FIELDS, [product.category_id, product.category_name, product.category_slug])
    return products


def searchable_terms(query):
    """The whitespace-separated terms of `query` that contain a letter or digit."""
    return [term for term in query.split() if WORD.search(term)]


def sqlite_search(terms, offset, limit):
    """(products of one page, total) for `terms` through the FTS5 index: one statement, plus a
    count for a page past the last one. Only the page's rows are read whole.

    The index holds only the products a search may return (migration 0006), so the number of
    its matches is the total; each match is still looked up for its name (the last ranks), and
    a product that is not visible is never returned, whatever the index says."""
    phrases = [_fts5_phrase(term) for term in terms]
    match = " AND ".join(f"({phrase})" for phrase in phrases)
    name_hits = " + ".join([f"(rowid IN ({SQLITE_MATCHES}))"] * len(phrases))
    bm25 = ", ".join(str(weight) for weight in BM25_WEIGHTS)
    sql = f"""
        WITH matched AS (
            SELECT rowid AS id, {name_hits} AS name_hits, bm25(catalog_product_fts, {bm25}) AS relevance
            FROM catalog_product_fts WHERE catalog_product_fts MATCH %s
        ), ranked AS (
            SELECT p.id, p.name, matched.name_hits, matched.relevance
            FROM matched JOIN catalog_product p ON p.id = matched.id
            WHERE p.is_active AND p.variant_of_id IS NULL  -- visible_products()
            ORDER BY matched.name_hits DESC, matched.relevance, p.name, p.id
            LIMIT %s OFFSET %s
        )
        SELECT {SUMMARY}, ({SQLITE_COUNT}) AS total
        FROM ranked
        JOIN catalog_product p ON p.id = ranked.id
        JOIN catalog_category c ON c.id = p.category_id
        ORDER BY ranked.name_hits DESC, ranked.relevance, ranked.name, ranked.id
    """
    params = [f"{{name}} : ({phrase})" for phrase in phrases] + [match, limit, offset, match]
    products = found_products(sql, params)
    if products:
        return products, products[0].total
    return [], _sqlite_count(match) if offset else 0


SQLITE_MATCHES = "SELECT rowid FROM catalog_product_fts WHERE catalog_product_fts MATCH %s"
SQLITE_COUNT = "SELECT COUNT(*) FROM catalog_product_fts WHERE catalog_product_fts MATCH %s"


def _sqlite_count(match):
    with connection.cursor() as cursor:
        cursor.execute(SQLITE_COUNT, [match])
        return cursor.fetchone()[0]


def _fts5_phrase(term):
    """An FTS5 phrase matching the words of `term` in a row, each as a prefix: "cup"* + "7"*."""
    return " + ".join(f'"{word}"*' for word in WORD.findall(term))


def postgresql_search(terms, offset, limit):
    """(products of one page, total) for `terms` through the GIN index: the categories each term
    names (one query of the small category table), then one ranked statement, plus a count for a
    page past the last one. Only the page's rows are read whole."""
    operands = [_tsquery_term(term) for term in terms]
    match, match_params = _postgresql_match(operands)
    # A weight label restricts an operand to lexemes of that weight: with A, to the name's words.
    name_hits = " + ".join([f"(p.search_document @@ {TSQUERY})::int"] * len(operands))
    every_term = " && ".join([TSQUERY] * len(operands))
    # ts_rank weighs A (the name) ten times D (the rest), as bm25 weighs the name on SQLite.
    sql = f"""
        WITH ranked AS (
            SELECT p.id, p.name, {name_hits} AS name_hits,
                   ts_rank(p.search_document, {every_term}) AS relevance, COUNT(*) OVER () AS total
            FROM catalog_product p
            WHERE p.is_active AND p.variant_of_id IS NULL AND {match}  -- visible_products()
            ORDER BY name_hits DESC, relevance DESC, p.name, p.id
            LIMIT %s OFFSET %s
        )
        SELECT {SUMMARY}, ranked.total
        FROM ranked
        JOIN catalog_product p ON p.id = ranked.id
        JOIN catalog_category c ON c.id = p.category_id
        ORDER BY ranked.name_hits DESC, ranked.relevance DESC, ranked.name, ranked.id
    """
    name_operands = [_tsquery_term(term, "A") for term in terms]
    products = found_products(sql, [*name_operands, *operands, *match_params, limit, offset])
    if products:
        return products, products[0].total
    return [], _postgresql_count(match, match_params) if offset else 0


def _postgresql_match(operands):
    """The condition every term must meet (its words in the product's text, or its category's
    name), and its parameters."""
    conditions = []
    for operand, category_ids in zip(operands, _categories_matching(operands)):
        condition = f"p.search_document @@ {TSQUERY}"
        if category_ids:
            # Literal ids: the planner estimates them from its statistics and keeps the GIN scan.
            condition = f"({condition} OR p.category_id IN ({', '.join(str(int(pk)) for pk in category_ids)}))"
        conditions.append(condition)
    return " AND ".join(conditions), operands


def _postgresql_count(match, params):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM catalog_product p WHERE p.is_active AND p.variant_of_id IS NULL "
                       f"AND {match}", params)
        return cursor.fetchone()[0]


def _tsquery_term(term, weight=""):
    """`term` as a tsquery whose words are all prefixes. A term of several words matches either as
    PostgreSQL's parser reads it ('cup-7':* → 'cup':* <-> '-7':*, as the product's text "Cup-7" is
    indexed) or as its words in a row, split as SQLite's phrase is (_fts5_phrase): "speckled-oat"
    then finds "Speckled Oat" on both. A weight label (A: the name's words) restricts every word to
    lexemes of that weight."""
    quoted = term.replace("\\", "\\\\").replace("'", "''")
    as_written = f"'{quoted}':*{weight}"
    words = WORD.findall(term)
    if words == [term]:
        return as_written
    in_a_row = " <-> ".join(f"'{word}':*{weight}" for word in words)
    return f"({as_written} | ({in_a_row}))"


def _categories_matching(operands):
    """For each operand, the ids of the categories whose name it matches, in one query (categories are few)."""
    flags = ", ".join(f"to_tsvector('{POSTGRES_CONFIG}', name) @@ {TSQUERY}" for _ in operands)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, {flags} FROM catalog_category", operands)
        matches = cursor.fetchall()
    return [[row[0] for row in matches if row[n]] for n in range(1, len(operands) + 1)]
