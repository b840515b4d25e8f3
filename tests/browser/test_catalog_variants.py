"""Variants in a real browser: a shopper sees a product's sizes on its page, and staff edit them inline in admin."""
import re

import pytest
import requests
from django.db.models import F
from playwright.sync_api import expect

from catalog.demo import load_demo_catalog
from catalog.models import Product
from tests.browser.test_security_csp import assert_no_violation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_product_page_lists_its_variants_and_each_variant_names_its_parent(live_server, watched_page):
    load_demo_catalog()
    page = watched_page
    page.goto(f"{live_server.url}/products/round-planter/")

    rows = page.locator(".variants__table tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("small")
    expect(rows.nth(0)).to_contain_text("$18.00 USD")
    expect(rows.nth(2)).to_contain_text("large")
    expect(rows.nth(2).locator("code")).to_have_text("round-planter-large")

    rows.nth(2).get_by_role("link", name="large").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Round Planter, large")
    expect(page.locator(".product__variant-of")).to_contain_text("Round Planter")
    expect(page.locator(".variants")).to_have_count(0)
    assert_no_violation(page)


def test_staff_add_a_variant_inline_and_agents_can_buy_it(live_server, staff_page):
    load_demo_catalog()
    page = staff_page

    parent = Product.objects.get(public_id="nesting-bowl")
    page.goto(f"{live_server.url}/admin/catalog/product/{parent.pk}/change/")
    inline = page.locator("#variants-group")
    expect(inline.locator("tbody tr.has_original")).to_have_count(3)
    inline.get_by_role("button", name=re.compile("Add another variant", re.IGNORECASE)).click()
    new_row = inline.locator("tbody tr.form-row:not(.has_original):not(.empty-form)").last
    new_row.locator("input[name$='-public_id']").fill("nesting-bowl-tiny")
    new_row.locator("input[name$='-name']").fill("Nesting Bowl, tiny")
    new_row.locator("input[name$='-slug']").fill("nesting-bowl-tiny")
    new_row.locator("textarea[name$='-variant_attributes']").fill('{"size": "tiny"}')
    new_row.locator("input[name$='-price']").fill("12.00")
    new_row.locator("input[name$='-stock']:not([type=hidden])").fill("7")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")

    tiny = Product.objects.get(public_id="nesting-bowl-tiny")
    assert (tiny.variant_of_id, tiny.category_id, tiny.currency) == (parent.pk, parent.category_id, "USD")
    detail = requests.get(f"{live_server.url}/.well-known/agents/api/detail/nesting-bowl", timeout=10).json()["data"]
    assert detail["variants"][0] == {"id": "nesting-bowl-tiny", "name": "Nesting Bowl, tiny",
                                     "attributes": {"size": "tiny"}, "price": 12.0, "currency": "USD",
                                     "stock": 7, "in_stock": True}
    assert_no_violation(page)


def sell(public_id, quantity):
    """A sale while staff have the page open, as checkout takes stock."""
    Product.objects.filter(public_id=public_id).update(stock=F("stock") - quantity)


def test_saving_a_page_opened_before_a_sale_keeps_the_sale(live_server, staff_page):
    """Staff save what they changed; stock sold meanwhile stays sold (it was written back before)."""
    load_demo_catalog()
    page = staff_page
    parent = Product.objects.get(public_id="nesting-bowl")
    small, medium = parent.variants.order_by("pk")[:2]
    page.goto(f"{live_server.url}/admin/catalog/product/{parent.pk}/change/")
    sell(small.public_id, 2)
    sell(medium.public_id, 1)
    page.locator("textarea[name='description']").fill("Three bowls that nest, thrown in one session.")
    medium_row = page.locator("#variants-group tbody tr.has_original",
                              has=page.locator(f"input[value='{medium.public_id}']"))
    medium_row.locator("input[name$='-stock']:not([type=hidden])").fill(str(medium.stock + 5))  # staff restock 5
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")

    small_after, medium_after = Product.objects.get(pk=small.pk), Product.objects.get(pk=medium.pk)
    assert small_after.stock == small.stock - 2  # untouched row: the sale stands
    assert medium_after.stock == medium.stock - 1 + 5  # the restock moves what is left
    assert Product.objects.get(pk=parent.pk).description.startswith("Three bowls")

    mug = Product.objects.get(public_id="mug-celadon")
    page.goto(f"{live_server.url}/admin/catalog/product/?q=mug-celadon")
    sell(mug.public_id, 3)
    page.locator("input[name$='-is_active']").first.uncheck()  # the list's editable columns
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    mug_after = Product.objects.get(pk=mug.pk)
    assert (mug_after.stock, mug_after.is_active) == (mug.stock - 3, False)
