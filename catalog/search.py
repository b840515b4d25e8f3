"""Full-text product search on an index, one code path per database vendor.

Both paths read a query the same way. Terms are separated by whitespace and every term must
match (terms without a letter or digit are ignored). A term matches the words that start
with it — "mug" finds "Mugs", "stone" finds "stoneware" — in the product's name, public id,
description, tags, materials or category name; a term of several words ("cup-7") matches
them in a row. Results rank by how many terms match in the name (name matches first), then
by relevance (bm25 on SQLite, ts_rank on PostgreSQL), then by name and id.

SQLite (the embedded default): the FTS5 table `catalog_product_fts` of migration 0002,
kept in step with products and category names by triggers. PostgreSQL (scale-out): the
generated tsvector column `search_document` of the product's own text under a GIN index
(migration 0002); category names are matched first, in the small category table.
"""
import re
from functools import reduce
from operator import and_

from django.contrib.postgres.search import (
    SearchQuery,
    SearchRank,
    SearchVector,
    SearchVectorField,
)
from django.db import connection
from django.db.models import (
    BooleanField,
    Case,
    ExpressionWrapper,
    F,
    Func,
    IntegerField,
    Q,
    Value,
    When,
)
from django.db.models.expressions import RawSQL

from . import rows
from .models import Category

WORD = re.compile(r"[^\W_]+")

# SQLite: bm25 weight of each FTS5 column, in the table's order: name, public_id,
# description, category, tags, materials.
BM25_WEIGHTS = (10.0, 5.0, 1.0, 2.0, 2.0, 2.0)

# PostgreSQL: migration 0002's generated column (not a model field), the name's words with
# weight A and the rest of the product's text with weight D, under a GIN index.
POSTGRES_CONFIG = "simple"
DOCUMENT = RawSQL('"catalog_product"."search_document"', [], output_field=SearchVectorField())
NAME_WORDS = Func(DOCUMENT, function="ts_filter", template="%(function)s(%(expressions)s, '{a}')",
                  output_field=SearchVectorField())


def searchable_terms(query):
    """The whitespace-separated terms of `query` that contain a letter or digit."""
    return [term for term in query.split() if WORD.search(term)]


def sqlite_search(terms, offset, limit):
    """(products of one page, total) for `terms` through the FTS5 index: one statement, plus a
    count for a page past the last one. Only the page's rows are read whole."""
    phrases = [_fts5_phrase(term) for term in terms]
    match = " AND ".join(f"({phrase})" for phrase in phrases)
    name_hits = " + ".join([f"(rowid IN ({SQLITE_MATCHING_IDS}))"] * len(phrases))
    bm25 = ", ".join(str(weight) for weight in BM25_WEIGHTS)
    sql = f"""
        WITH matched AS (
            SELECT rowid AS id, {name_hits} AS name_hits, bm25(catalog_product_fts, {bm25}) AS relevance
            FROM catalog_product_fts WHERE catalog_product_fts MATCH %s
        ), ranked AS (
            SELECT p.id, p.name, matched.name_hits, matched.relevance, COUNT(*) OVER () AS total
            FROM matched JOIN catalog_product p ON p.id = matched.id
            WHERE p.is_active AND p.variant_of_id IS NULL  -- visible_products()
            ORDER BY matched.name_hits DESC, matched.relevance, p.name, p.id
            LIMIT %s OFFSET %s
        )
        SELECT {rows.SUMMARY.sql}, ranked.total
        FROM ranked
        JOIN catalog_product p ON p.id = ranked.id
        JOIN catalog_category c ON c.id = p.category_id
        ORDER BY ranked.name_hits DESC, ranked.relevance, ranked.name, ranked.id
    """
    params = [f"{{name}} : ({phrase})" for phrase in phrases] + [match, limit, offset]
    products = rows.products(sql, params, rows.SUMMARY)
    if products:
        return products, products[0].total
    return [], _sqlite_count(match) if offset else 0


SQLITE_MATCHING_IDS = "SELECT rowid FROM catalog_product_fts WHERE catalog_product_fts MATCH %s"


def _sqlite_count(match):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COUNT(*) FROM catalog_product_fts JOIN catalog_product p ON p.id = catalog_product_fts.rowid "
            "WHERE catalog_product_fts MATCH %s AND p.is_active AND p.variant_of_id IS NULL",
            [match],
        )
        return cursor.fetchone()[0]


def _fts5_phrase(term):
    """An FTS5 phrase matching the words of `term` in a row, each as a prefix: "cup"* + "7"*."""
    return " + ".join(f'"{word}"*' for word in WORD.findall(term))


def postgresql_search(products, terms):
    """`products` filtered to those matching every term and ordered by rank (GIN index)."""
    queries = [SearchQuery(_tsquery_term(term), search_type="raw", config=POSTGRES_CONFIG) for term in terms]
    matched = products.annotate(document=DOCUMENT, name_words=NAME_WORDS)
    for query, category_ids in zip(queries, _categories_matching(queries)):
        # Literal ids: the planner estimates them from its statistics and keeps the GIN scan.
        matched = matched.filter(Q(document=query) | Q(category_id__in=category_ids))
    name_hits = sum(
        (Case(When(name_words=query, then=Value(1)), default=Value(0)) for query in queries),
        start=Value(0, output_field=IntegerField()),
    )
    # ts_rank weighs A (the name) ten times D (the rest), as bm25 weighs the name on SQLite.
    ranked = matched.annotate(name_hits=name_hits, rank=SearchRank(F("document"), reduce(and_, queries)))
    return ranked.order_by("-name_hits", "-rank", "name", "id")


def _tsquery_term(term):
    """`term` as one quoted tsquery operand whose words are all prefixes: 'cup-7':* → 'cup':* <-> '-7':*."""
    quoted = term.replace("\\", "\\\\").replace("'", "''")
    return f"'{quoted}':*"


def _categories_matching(queries):
    """For each query, the ids of the categories whose name it matches, in one query (categories are few)."""
    flags = {f"matches_{n}": ExpressionWrapper(Q(document=query), output_field=BooleanField())
             for n, query in enumerate(queries)}
    categories = Category.objects.annotate(document=SearchVector("name", config=POSTGRES_CONFIG)).annotate(**flags)
    matches = list(categories.order_by().values_list("pk", *flags))
    return [[row[0] for row in matches if row[n]] for n in range(1, len(queries) + 1)]
