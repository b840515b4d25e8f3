"""Full-text product search (catalog/search.py) on both databases the site runs on.

The same catalog and queries run on SQLite's FTS5 path (in this process, on the test
database) and on PostgreSQL's GIN path (a real PostgreSQL server, where `main()` below,
run by `manage.py shell`, loads the catalog and prints the results).
Both must give the same answers. Each path must also use its index.
"""
import json
import subprocess
import sys
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog import selectors
from catalog.models import Category, Product
from tests.factories import make_category, make_product
from tests.servers import ROOT, migrate, site_env

QUERIES = [
    # (query, page, limit)
    ("celadon", 1, 10),
    ("blue bowl", 1, 10),
    ("mug", 1, 10),
    ("celadon mugs", 1, 10),
    ("MUGS", 1, 10),
    ("stone", 1, 10),
    ("Speckled", 1, 10),
    ("CUP-7", 1, 10),
    ("pulled HANDLE", 1, 10),
    ("retired", 1, 10),
    ("tall", 1, 10),
    ("mug", 2, 2),
    ("mug", 9, 2),
    ("?! -- mug", 1, 10),
    ("?! --", 1, 10),
    ("bowl-like", 1, 10),
    ("oat-mug", 1, 10),
    ("xylophone", 1, 10),
    ("creme", 1, 10),
    ("CRÈME", 1, 10),
    ("crè", 1, 10),
    ("sevres", 1, 10),
    ("patisserie", 1, 10),
    ("Ramékin", 1, 10),
]


def make_catalog():
    mugs = make_category(name="Mugs", slug="mugs")
    vases = make_category(name="Vases", slug="vases")
    tableware = make_category(name="Tableware", slug="tableware")
    make_product(name="Zen Celadon Cup", category=mugs, tags=["celadon"])
    make_product(name="Celadon Bud Vase", category=vases)
    make_product(name="Aardvark Plate", category=tableware, description="Glazed in celadon.")
    make_product(name="Blue Plate", category=tableware, description="A large bowl-like plate.")
    make_product(name="Blue Bowl", category=tableware)
    make_product(name="Oat Mug", category=mugs)
    make_product(name="Oat Mug", category=mugs)
    moss = make_product(name="Moss Mug", category=mugs)
    make_product(name="Moss Mug Tall", category=mugs, variant_of=moss)  # shown on its parent's page only
    make_product(name="Morning Cup", category=mugs, public_id="cup-7", description="With a pulled handle.",
                 materials=["stoneware"], tags=["speckled"], price=Decimal("36.00"))
    make_product(name="Retired Mug", category=mugs, is_active=False)
    pastry = make_category(name="Pâtisserie", slug="patisserie")
    make_product(name="Crème Ramekin", category=pastry, description="After the porcelain of Sèvres.")


def run_queries():
    results = {}
    for query, page, limit in QUERIES:
        with CaptureQueriesContext(connection) as captured:
            products, total = selectors.search_products.uncached(query, page, limit)
            found = {
                "names": [p.name for p in products],
                "ids": [p.pk for p in products],
                "categories": [p.category.slug for p in products],
                "total": total,
            }
        results[f"{query}|{page}|{limit}"] = {**found, "queries": len(captured)}
    return results


def postgres_plan():
    """The plan of a search's ranked statement once the catalog has a few thousand products that
    do not match (and the planner their statistics): a search must not read them all."""
    tableware = Category.objects.get(slug="tableware")
    Product.objects.bulk_create(
        Product(public_id=f"plain-{n}", name=f"Plain Dish {n}", slug=f"plain-dish-{n}", price=Decimal("5.00"),
                currency="USD", stock=1, category=tableware)
        for n in range(3000)
    )
    with CaptureQueriesContext(connection) as captured:
        selectors.search_products.uncached("celadon", 1, 10)
    ranked = captured.captured_queries[-1]["sql"]
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE catalog_product")
        cursor.execute(f"EXPLAIN {ranked}")
        return "\n".join(row[0] for row in cursor.fetchall())


def postgres_index_options():
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'catalog_product_search'")
        return cursor.fetchone()[0]


@pytest.fixture(scope="module")
def postgres_run(postgres_server, tmp_path_factory):
    env = site_env(tmp_path_factory.mktemp("search-pg"),
                   DATABASE_URL=postgres_server.create_database("acme_search"))
    migrate(env)
    code = "from tests.test_search_index import main; main()"
    run = subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c", code],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.fixture(params=["sqlite", "postgresql"])
def vendor(request):
    return request.param


@pytest.fixture
def results(request, vendor):
    if vendor == "sqlite":
        request.getfixturevalue("db")
        assert connection.vendor == "sqlite"
        make_catalog()
        return run_queries()
    return request.getfixturevalue("postgres_run")["results"]


def names(results, query, page=1, limit=10):
    return results[f"{query}|{page}|{limit}"]["names"]


def found(results, key):
    """What a search returned, without its query count."""
    return {name: value for name, value in results[key].items() if name != "queries"}


def test_name_matches_rank_first_then_by_relevance(results):
    # Both name matches rank before the description match; among them, the one that also
    # carries the word in its tags is the more relevant, although its name sorts last.
    assert names(results, "celadon") == ["Zen Celadon Cup", "Celadon Bud Vase", "Aardvark Plate"]


def test_more_terms_in_the_name_rank_higher(results):
    assert names(results, "blue bowl") == ["Blue Bowl", "Blue Plate"]


def test_equal_rank_breaks_by_name_then_id(results):
    found = results["mug|1|10"]
    assert found["names"][:3] == ["Moss Mug", "Oat Mug", "Oat Mug"]
    assert found["ids"][1] < found["ids"][2]
    # The category name matches too, after every name match.
    assert sorted(found["names"][3:]) == ["Morning Cup", "Zen Celadon Cup"]
    assert found["total"] == 5


def test_every_term_must_match_somewhere_across_fields(results):
    # "celadon" in the name, "mugs" in the category name.
    assert names(results, "celadon mugs") == ["Zen Celadon Cup"]


def test_a_term_matches_the_category_name(results):
    assert sorted(names(results, "MUGS")) == ["Morning Cup", "Moss Mug", "Oat Mug", "Oat Mug", "Zen Celadon Cup"]


@pytest.mark.parametrize("query", ["stone", "Speckled", "CUP-7", "pulled HANDLE"])
def test_a_term_matches_word_prefixes_in_materials_tags_public_id_and_description(results, query):
    assert names(results, query) == ["Morning Cup"]


def test_words_joined_by_punctuation_match_in_a_row(results):
    assert names(results, "bowl-like") == ["Blue Plate"]
    assert names(results, "oat-mug") == ["Oat Mug", "Oat Mug"]  # the product's text has no hyphen


def test_inactive_products_variants_and_unknown_words_are_never_found(results):
    nothing = {"names": [], "ids": [], "categories": [], "total": 0}
    assert found(results, "retired|1|10") == nothing
    assert found(results, "tall|1|10") == nothing
    assert results["xylophone|1|10"]["total"] == 0


@pytest.mark.parametrize("query", ["creme", "CRÈME", "crè", "sevres", "patisserie", "Ramékin"])
def test_accents_do_not_count_in_the_text_or_the_query(results, query):
    # The name "Crème Ramekin", the description "… of Sèvres.", the category "Pâtisserie".
    assert names(results, query) == ["Crème Ramekin"]


def test_terms_without_letters_or_digits_are_ignored(results):
    assert names(results, "?! -- mug") == names(results, "mug")
    assert results["?! --|1|10"]["total"] == 0


def test_pages_slice_the_ranked_results_and_report_the_total(results):
    assert names(results, "mug", 2, 2) == names(results, "mug")[2:4]
    assert results["mug|2|2"]["total"] == 5
    assert found(results, "mug|9|2") == {"names": [], "ids": [], "categories": [], "total": 5}


def test_results_carry_their_category(results):
    assert results["celadon|1|10"]["categories"] == ["mugs", "vases", "tableware"]


def test_a_search_takes_the_same_few_queries_whatever_it_finds(results, vendor):
    # SQLite: one ranked statement. PostgreSQL: the categories each term names, then the ranked statement.
    expected = {"sqlite": 1, "postgresql": 2}[vendor]
    page_one = {key: r["queries"] for key, r in results.items() if key.endswith("|1|10") and r["total"]}
    assert set(page_one.values()) == {expected}, page_one
    assert results["?! --|1|10"]["queries"] == 0  # nothing to look for
    # A page past the last one also counts the matches.
    assert results["mug|9|2"]["queries"] == {"sqlite": 2, "postgresql": 3}[vendor]


def test_postgresql_uses_the_gin_index(postgres_run):
    assert "Bitmap Index Scan on catalog_product_search" in postgres_run["plan"]


def test_postgresql_index_takes_changes_at_once(postgres_run):
    # No pending list for every search to scan until a VACUUM (migration 0005).
    assert postgres_run["index_options"] == ["fastupdate=off"]


@pytest.mark.django_db
def test_sqlite_search_reads_the_fts5_index_and_scans_no_table():
    make_catalog()
    with CaptureQueriesContext(connection) as captured:
        selectors.search_products.uncached("celadon mugs", 1, 10)
    (query,) = captured.captured_queries
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {query['sql']}")
        plan = [row[-1] for row in cursor.fetchall()]
    scanned = {step.split()[1] for step in plan if step.startswith("SCAN ")}
    # Products and categories are only looked up by key; what is scanned is the index (through
    # MATCH), the page's ids ("ranked") and SQLite's own intermediate results, "(subquery-N)".
    assert {name for name in scanned if not name.startswith("(")} == {"catalog_product_fts", "ranked"}, plan
    assert all("VIRTUAL TABLE INDEX" in step for step in plan if step.startswith("SCAN catalog_product_fts")), plan


@pytest.mark.django_db
def test_sqlite_index_follows_inserts_updates_deletes_and_category_renames():
    mugs = make_category(name="Mugs", slug="mugs")
    mug = make_product(name="Oat Mug", category=mugs)
    assert names_of("oat") == ["Oat Mug"]

    mug.name = "Birch Mug"
    mug.save()
    assert names_of("oat") == [] and names_of("birch") == ["Birch Mug"]

    Product.objects.filter(pk=mug.pk).update(tags=["gift"])
    assert names_of("gift") == ["Birch Mug"]

    Category.objects.filter(pk=mugs.pk).update(name="Tumblers")
    assert names_of("tumblers") == ["Birch Mug"] and names_of("mugs") == []

    Product.objects.filter(pk=mug.pk).update(stock=0, price=Decimal("1.00"))  # not indexed: nothing to do
    assert names_of("birch") == ["Birch Mug"]

    mug.delete()
    assert names_of("birch") == []


@pytest.mark.django_db
def test_sqlite_index_holds_exactly_the_products_a_search_may_return():
    mugs = make_category(name="Mugs", slug="mugs")
    mug = make_product(name="Oat Mug", category=mugs)
    retired = make_product(name="Oat Cup", category=mugs, is_active=False)
    large = make_product(name="Oat Mug Large", category=mugs, variant_of=mug)
    assert indexed_ids() == visible_ids() == {mug.pk}
    assert selectors.search_products("oat", 1, 10)[1] == 1

    Product.objects.filter(pk=retired.pk).update(is_active=True)
    Product.objects.filter(pk=mug.pk).update(is_active=False)
    assert indexed_ids() == visible_ids() == {retired.pk}
    assert names_of("oat") == ["Oat Cup"]

    Product.objects.filter(pk=large.pk).update(variant_of=None, name="Oat Beaker")
    assert indexed_ids() == visible_ids() == {retired.pk, large.pk}
    assert names_of("beaker") == ["Oat Beaker"] and selectors.search_products("oat", 1, 10)[1] == 2

    Product.objects.filter(pk=retired.pk).update(variant_of=large)
    assert indexed_ids() == visible_ids() == {large.pk}
    assert names_of("cup") == []


def indexed_ids():
    with connection.cursor() as cursor:
        cursor.execute("SELECT rowid FROM catalog_product_fts")
        return {row[0] for row in cursor.fetchall()}


def visible_ids():
    return set(selectors.visible_products().values_list("pk", flat=True))


def names_of(query):
    return [p.name for p in selectors.search_products(query, 1, 10)[0]]


def main():
    """Run by postgres_run (manage.py shell) on the database DATABASE_URL names."""
    make_catalog()
    print(json.dumps({"results": run_queries(), "plan": postgres_plan(), "index_options": postgres_index_options()}))
