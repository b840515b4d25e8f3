"""The human catalog pages, in process (in a browser: tests/browser/)."""
import html
import re

import pytest

from catalog.demo import load_demo_catalog
from catalog.models import Category, Product
from tests.api_client import IN_PROCESS_URL

pytestmark = pytest.mark.django_db

PAGE_SIZE = 12
AGENTS_LINK = '<link rel="agents" href="/.well-known/agents.json">'


@pytest.fixture
def demo_catalog():
    return load_demo_catalog()


@pytest.fixture
def get(http):
    def fetch(path):
        return http.get(IN_PROCESS_URL + path, timeout=10)

    return fetch


def card_names(response):
    return [html.unescape(name) for name in re.findall(r'class="card__name">([^<]+)<', response.text)]


def listed_products():
    """The products listings show: variants appear on their parent's page only."""
    return Product.objects.filter(variant_of=None)


def newest_first_names(products):
    return list(products.order_by("-created", "-id").values_list("name", flat=True))


def test_home_page_lists_the_newest_first_page(demo_catalog, get):
    response = get("/")

    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/html")
    assert card_names(response) == newest_first_names(listed_products())[:PAGE_SIZE]
    assert f"{listed_products().count()} pieces" in response.text


def test_every_page_advertises_the_agents_documents(demo_catalog, get):
    for path in ["/", "/?category=vases", "/products/mug-celadon/"]:
        page = get(path).text
        head = page.split("</head>")[0]
        assert AGENTS_LINK in head
        assert '<a href="/.well-known/agents.txt">' in page.split("<footer")[1]
        assert '<a class="wordmark" href="/">' in page


def test_category_nav_links_every_category(demo_catalog, get):
    page = get("/").text

    for category in Category.objects.all():
        assert f'href="/?category={category.slug}"' in page
        assert html.escape(category.name) in page


def test_category_filter_shows_only_that_category(demo_catalog, get):
    response = get("/?category=vases")

    vases = Product.objects.filter(category__slug="vases")
    assert response.status_code == 200
    assert sorted(card_names(response)) == sorted(vases.values_list("name", flat=True))
    assert "<h1>Vases</h1>" in response.text
    assert 'href="/?category=vases" aria-current="page"' in response.text


def test_pages_walk_through_the_whole_catalog(demo_catalog, get):
    expected = newest_first_names(listed_products())
    last_page = -(-len(expected) // PAGE_SIZE)

    seen = []
    for number in range(1, last_page + 1):
        response = get(f"/?page={number}")
        assert f"Page {number} of {last_page}" in response.text
        seen += card_names(response)

    assert seen == expected


@pytest.mark.parametrize("page, shown", [("0", 1), ("-4", 1), ("abc", 1), ("2.5", 1), ("999", "last")])
def test_odd_page_numbers_clamp_instead_of_failing(demo_catalog, get, page, shown):
    last_page = -(-listed_products().count() // PAGE_SIZE)
    number = last_page if shown == "last" else shown

    response = get(f"/?page={page}")

    assert response.status_code == 200
    assert f"Page {number} of {last_page}" in response.text


def test_pagination_links_keep_the_category_and_sort(demo_catalog, get):
    response = get("/?category=mugs&sort=price_asc")

    assert 'href="?category=mugs&amp;sort=price_asc&amp;page=2"' in response.text


def test_price_sort_orders_the_cards(demo_catalog, get):
    cheapest_first = card_names(get("/?sort=price_asc"))
    dearest_first = card_names(get("/?sort=price_desc"))

    by_price = listed_products().order_by("price", "name")
    assert cheapest_first == list(by_price.values_list("name", flat=True))[:PAGE_SIZE]
    assert dearest_first[0] == listed_products().order_by("-price").first().name


def test_unknown_sort_falls_back_to_newest(demo_catalog, get):
    assert card_names(get("/?sort=random")) == card_names(get("/"))


def test_product_page_shows_everything_a_shopper_and_agent_need(demo_catalog, get):
    response = get("/products/mug-speckled-oat/")

    page = html.unescape(response.text)
    mug = Product.objects.get(public_id="mug-speckled-oat")
    assert response.status_code == 200
    assert "<title>Speckled Oat Mug · Acme Ceramics</title>" in page
    assert "<h1>Speckled Oat Mug</h1>" in page
    assert "$32.00 USD" in page
    assert mug.description in page
    assert "speckled stoneware" in page
    assert all(f"<li>{tag}</li>" in page for tag in mug.tags)
    assert '<a href="/?category=mugs">Mugs & Cups</a>' in page
    assert "<code>mug-speckled-oat</code>" in page
    assert '<svg class="placeholder"' in page


@pytest.mark.parametrize("stock, status", [(0, "Out of stock"), (2, "Only 2 left"), (40, "In stock")])
def test_product_page_shows_stock_status(demo_catalog, get, stock, status):
    Product.objects.filter(public_id="mug-celadon").update(stock=stock)

    assert f">{status}</p>" in get("/products/mug-celadon/").text


@pytest.mark.parametrize("path", ["/products/no-such-pot/", "/?category=teapots", "/?category=teapots&page=2"])
def test_unknown_product_or_category_is_404(demo_catalog, get, path):
    response = get(path)

    assert response.status_code == 404
    assert "Traceback" not in response.text


def test_inactive_product_is_404_and_left_out_of_the_list(demo_catalog, get):
    Product.objects.filter(public_id="teapot-tenmoku").update(is_active=False)

    assert get("/products/teapot-tenmoku/").status_code == 404
    assert "Tenmoku Teapot" not in card_names(get("/?category=teaware"))


def test_empty_category_shows_a_friendly_message(demo_catalog, get):
    Category.objects.create(name="Lamps", slug="lamps", position=9)

    response = get("/?category=lamps")

    assert response.status_code == 200
    assert card_names(response) == []
    assert "Nothing on this shelf right now" in response.text


def test_a_product_with_variants_shows_what_its_variants_offer_on_its_page_and_card(demo_catalog, get):
    Product.objects.filter(public_id="round-planter-small").update(stock=0)  # the cheapest size sold out
    page = get("/products/round-planter/").text
    assert '<p class="product__price price">$28.00 USD</p>' in page
    Product.objects.filter(public_id__startswith="round-planter-").update(stock=0)
    assert ">Out of stock</p>" in get("/products/round-planter/").text
    listing = get("/?category=planters").text
    card = listing[listing.index(">Round Planter<"):][:400]
    assert "Out of stock" in card
    assert get("/products/round-planter-large/").status_code == 200  # a variant's own page
    Product.objects.filter(public_id="round-planter").update(is_active=False)
    assert get("/products/round-planter-large/").status_code == 404  # withdrawn with its parent
