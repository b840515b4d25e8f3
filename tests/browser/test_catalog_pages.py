import re

import pytest
from playwright.sync_api import expect

from catalog.demo import load_demo_catalog
from catalog.models import Product

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo_catalog():
    return load_demo_catalog()


def test_shopper_picks_a_category_and_opens_a_product(demo_catalog, live_server, page):
    page.goto(live_server.url + "/")
    expect(page.get_by_role("link", name="Acme Ceramics")).to_be_visible()
    expect(page.locator(".card")).to_have_count(12)

    page.get_by_role("navigation", name="Categories").get_by_role("link", name=re.compile(r"^Vases")).click()

    expect(page).to_have_url(re.compile(r"/\?category=vases$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Vases")
    expect(page.locator(".card")).to_have_count(Product.objects.filter(category__slug="vases").count())

    page.get_by_role("link", name="Chalk White Moon Jar").click()

    expect(page).to_have_url(re.compile(r"/products/moon-jar-chalk/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Chalk White Moon Jar")
    expect(page.get_by_text("$235.00 USD")).to_be_visible()
    expect(page.get_by_text("Only 2 left")).to_be_visible()
    expect(page.locator(".product__id code")).to_have_text("moon-jar-chalk")
    expect(page.locator(".product__image svg.placeholder")).to_be_visible()


def test_shopper_pages_through_the_catalog(demo_catalog, live_server, page):
    page.goto(live_server.url + "/?sort=price_desc")
    first_page = page.locator(".card__name").all_inner_texts()

    page.get_by_role("link", name="Next →").click()

    expect(page.get_by_text(re.compile(r"^Page 2 of \d+$"))).to_be_visible()
    second_page = page.locator(".card__name").all_inner_texts()
    assert len(second_page) == 12
    assert not set(first_page) & set(second_page)
    expect(page.get_by_role("link", name="Price: high to low")).to_have_attribute("aria-current", "true")


def test_catalog_fits_a_phone_screen(demo_catalog, live_server, page):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + "/products/teapot-tenmoku/")

    page_width = page.evaluate("document.documentElement.scrollWidth")
    assert page_width <= 390
    expect(page.get_by_role("heading", level=1)).to_be_in_viewport()
