"""The catalog read cache (catalog/read_cache.py): reused while the catalog is unchanged,
never stale after a change, whichever way the change is made, in every worker, on both databases."""
import json
import subprocess
import sys
from decimal import Decimal

import pytest
import requests
from django.db import connection

from acme.agents import detail_answer
from catalog import selectors
from catalog.models import Category, Product
from catalog.read_cache import catalog_version
from tests.factories import make_category, make_product
from tests.servers import ROOT, migrate, set_rate_limit, site_env, start_site

API = "/.well-known/agents/api"


def catalog_changes():
    """Each way the catalog can change, in turn; yields the change's name after making it."""
    mugs = Category.objects.create(name="Mugs", slug="mugs")
    yield "category insert"
    mug = Product.objects.create(public_id="oat-mug", name="Oat Mug", slug="oat-mug", price=Decimal("10.00"),
                                 stock=5, category=mugs)
    yield "product insert"
    Product.objects.bulk_create([Product(public_id=f"bulk-{n}", name=f"Bulk {n}", slug=f"bulk-{n}",
                                         price=Decimal("1.00"), category=mugs) for n in range(3)])
    yield "bulk insert"
    mug.name = "Birch Mug"
    mug.save()
    yield "product save"
    Product.objects.filter(pk=mug.pk).update(stock=4)
    yield "stock update"
    Product.objects.filter(pk=mug.pk).update(price=Decimal("12.00"))
    yield "price update"
    Product.objects.filter(public_id__startswith="bulk-").update(is_active=False)
    yield "deactivation"
    Category.objects.filter(pk=mugs.pk).update(name="Tumblers")
    yield "category rename"
    Product.objects.filter(public_id__startswith="bulk-").delete()
    yield "product delete"
    vases = Category.objects.create(name="Vases", slug="vases")
    vases.delete()
    yield "category delete"
    with connection.cursor() as cursor:
        cursor.execute("UPDATE catalog_product SET description = 'raw' WHERE public_id = 'oat-mug'")
    yield "plain SQL update"


def versions_after_each_change():
    versions = {"before": catalog_version()}
    for change in catalog_changes():
        versions[change] = catalog_version()
    return versions


@pytest.mark.django_db
def test_every_catalog_change_replaces_the_version_on_sqlite():
    versions = versions_after_each_change()
    assert len(set(versions.values())) == len(versions), versions


def test_every_catalog_change_replaces_the_version_on_postgresql(postgres_server, tmp_path):
    env = site_env(tmp_path, DATABASE_URL=postgres_server.create_database("acme_read_cache"))
    migrate(env)
    code = "from tests.test_catalog_read_cache import postgresql_main; postgresql_main()"
    run = subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c", code],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    versions = json.loads(run.stdout)
    assert len(set(versions.values())) == len(versions), versions


def postgresql_main():
    """Run by manage.py shell on PostgreSQL: the versions, then once more after a TRUNCATE (Django's flush)."""
    assert connection.vendor == "postgresql"
    versions = versions_after_each_change()
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE catalog_product, catalog_category CASCADE")
    versions["truncate"] = catalog_version()
    print(json.dumps(versions))


@pytest.fixture
def catalog(db):
    mugs = make_category(name="Mugs", slug="mugs")
    return [make_product(name=f"Celadon Mug {n}", public_id=f"mug-{n}", category=mugs, stock=10) for n in range(3)]


READS = [
    ("search", lambda: selectors.search_products("celadon", 1, 10)),
    ("browse", lambda: selectors.browse_products("mugs", "newest", 1, 10)),
    ("detail", lambda: selectors.get_active_product("mug-1")),
]


@pytest.mark.parametrize("name, read", READS)
def test_a_repeated_read_costs_only_the_version_check(catalog, django_assert_num_queries, name, read):
    first = read()
    with django_assert_num_queries(1):
        assert read() is first


@pytest.mark.parametrize("name, read", READS)
def test_a_change_shows_on_the_very_next_read(catalog, name, read):
    read()
    Product.objects.filter(public_id="mug-1").update(stock=3, price=Decimal("99.00"))
    products = read()
    mug = products if name == "detail" else next(p for p in products[0] if p.public_id == "mug-1")
    assert (mug.stock, mug.price) == (3, Decimal("99.00"))

    Product.objects.filter(public_id="mug-1").update(is_active=False)
    if name == "detail":
        assert read() is None
    else:
        assert "mug-1" not in [p.public_id for p in read()[0]]


def test_entries_are_bounded_least_recently_used_first(catalog, settings, django_assert_num_queries):
    settings.CATALOG_READ_CACHE_SIZE = 2
    for public_id in ["mug-0", "mug-1", "mug-0", "mug-2"]:  # mug-1 is the least recently used
        selectors.get_active_product(public_id)
    with django_assert_num_queries(2):  # a version check each
        selectors.get_active_product("mug-0")
        selectors.get_active_product("mug-2")
    with django_assert_num_queries(2):  # the version, then the product again
        selectors.get_active_product("mug-1")


def test_a_page_weighs_as_many_products_as_it_holds(catalog, settings, django_assert_num_queries):
    settings.CATALOG_READ_CACHE_SIZE = 3
    selectors.search_products("celadon", 1, 10)  # 3 products: the cache is full
    with django_assert_num_queries(1):
        selectors.search_products("celadon", 1, 10)
    selectors.get_active_product("mug-0")  # one more product pushes the page out
    with django_assert_num_queries(2):
        selectors.search_products("celadon", 1, 10)

    settings.CATALOG_READ_CACHE_SIZE = 2  # a page heavier than the whole cache is never kept
    for _ in range(2):
        with django_assert_num_queries(2):
            selectors.search_products("mug", 1, 10)


def test_size_zero_turns_the_cache_off(catalog, settings, django_assert_num_queries):
    settings.CATALOG_READ_CACHE_SIZE = 0
    selectors.get_active_product("mug-0")
    with django_assert_num_queries(1):  # the product, no version check
        selectors.get_active_product("mug-0")


def test_failed_reads_are_not_kept(catalog, django_assert_num_queries):
    for _ in range(2):
        with pytest.raises(selectors.UnknownCategory), django_assert_num_queries(2):  # version + category
            selectors.browse_products("teapots", "newest", 1, 10)


@pytest.fixture
def served(tmp_path):
    site = start_site(tmp_path, workers=2)
    change = ("from catalog.models import Category, Product; "
              "mugs = Category.objects.create(name='Mugs', slug='mugs'); "
              "[Product.objects.create(public_id=f'mug-{n}', name=f'Celadon Mug {n}', slug=f'mug-{n}', "
              "price=10, stock=10, category=mugs) for n in range(3)]")
    assert site.manage("shell", "-c", change).returncode == 0
    set_rate_limit(site, 10_000)
    yield site
    site.stop()


def api_reads(site, count):
    """`count` rounds of detail, search and browse, spread over the workers by the connections they open."""
    answers = []
    for _ in range(count):
        answers.append([
            requests.get(f"{site.url}{API}/detail/mug-1", timeout=10).json()["data"],
            requests.get(f"{site.url}{API}/search?q=celadon", timeout=10).json()["data"],
            requests.get(f"{site.url}{API}/browse?category=mugs", timeout=10).json()["data"],
        ])
    return answers


def test_every_worker_answers_a_change_made_elsewhere_on_its_next_request(served):
    before = api_reads(served, 20)
    assert all(detail["stock"] == 10 and search["total"] == 3 for detail, search, _ in before)

    change = ("from catalog.models import Product; "
              "Product.objects.filter(public_id='mug-1').update(stock=2, name='Celadon Mug Renamed'); "
              "Product.objects.filter(public_id='mug-2').update(is_active=False)")
    assert served.manage("shell", "-c", change).returncode == 0

    for detail, search, browse in api_reads(served, 20):
        assert (detail["stock"], detail["name"]) == (2, "Celadon Mug Renamed")
        assert search["total"] == browse["total"] == 2
        assert "mug-2" not in [item["id"] for item in search["results"] + browse["items"]]


def test_the_detail_answer_is_kept_per_origin_until_the_catalog_changes(catalog, django_assert_num_queries):
    first = detail_answer("mug-1", "http://a.example")
    with django_assert_num_queries(1):
        assert detail_answer("mug-1", "http://a.example") is first
    assert detail_answer("mug-1", "http://b.example")["url"].startswith("http://b.example/")

    Product.objects.filter(public_id="mug-1").update(stock=3)
    assert detail_answer("mug-1", "http://a.example")["stock"] == 3
