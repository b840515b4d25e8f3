"""Variants in a real browser: a shopper sees a product's sizes on its page, and staff edit them inline in admin."""
import re

import pytest
import requests
from django.contrib.auth import get_user_model
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


def test_staff_add_a_variant_inline_and_agents_can_buy_it(live_server, watched_page):
    load_demo_catalog()
    get_user_model().objects.create_superuser("staff", "staff@example.com", "a-long-test-password")
    page = watched_page
    page.goto(f"{live_server.url}/admin/login/")
    page.get_by_label("Username").fill("staff")
    page.get_by_label("Password").fill("a-long-test-password")
    page.get_by_role("button", name="Log in").click()

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
    new_row.locator("input[name$='-stock']").fill("7")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")

    tiny = Product.objects.get(public_id="nesting-bowl-tiny")
    assert (tiny.variant_of_id, tiny.category_id, tiny.currency) == (parent.pk, parent.category_id, "USD")
    detail = requests.get(f"{live_server.url}/.well-known/agents/api/detail/nesting-bowl", timeout=10).json()["data"]
    assert detail["variants"][0] == {"id": "nesting-bowl-tiny", "name": "Nesting Bowl, tiny",
                                     "attributes": {"size": "tiny"}, "price": 12.0, "currency": "USD",
                                     "stock": 7, "in_stock": True}
    assert_no_violation(page)
