"""The site's strict Content-Security-Policy breaks nothing in a real browser: the catalog, the
checkout handoff and Django admin (login, a change page with inlines, a save) load and work with
no CSP violation reported (securitypolicyviolation events and console errors both watched)."""
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.factories import make_product
from tests.test_checkout_pages import agent_checkout

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def assert_no_violation(page):
    assert page.evaluate("window.cspViolations") == []
    # The site has no favicon; Chromium asks for /favicon.ico anyway (a 404 unrelated to the policy).
    assert [error for error in page.console_errors if "/favicon.ico" not in error] == []


def test_catalog_pages_and_the_checkout_handoff_load_with_no_violation(live_server, watched_page):
    make_product(public_id="speckled-mug", slug="speckled-mug", name="Speckled Mug", price=Decimal("24.00"), stock=10)
    handoff, _agent = agent_checkout(live_server.url, ("speckled-mug", 1))

    for path in ("/", "/products/speckled-mug/"):
        response = watched_page.goto(f"{live_server.url}{path}")
        assert response.status < 400
        assert "default-src 'self'" in response.headers["content-security-policy"]
        assert_no_violation(watched_page)
    watched_page.goto(handoff["checkout_url"])
    expect(watched_page.get_by_role("button", name="Confirm order")).to_be_visible()
    assert_no_violation(watched_page)


def test_admin_login_and_a_change_page_with_inlines_work_under_the_policy(live_server, watched_page):
    get_user_model().objects.create_superuser("staff", "staff@example.com", "a-long-test-password")
    page = watched_page
    response = page.goto(f"{live_server.url}/admin/login/")
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    page.get_by_label("Username").fill("staff")
    page.get_by_label("Password").fill("a-long-test-password")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text("Site administration")).to_be_visible()

    page.goto(f"{live_server.url}/admin/agents_protocol/capability/")
    page.get_by_role("link", name="cart.add", exact=True).click()
    page.get_by_role("button", name="Add another Parameter").click()  # a link admin's JavaScript made
    expect(page.locator("tr.dynamic-params")).to_have_count(3)
    page.locator("a.inline-deletelink").click()
    expect(page.locator("tr.dynamic-params")).to_have_count(2)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")

    page.goto(f"{live_server.url}/admin/agents_protocol/siteprofile/")
    expect(page.locator("pre.agents-preview").first).to_have_css("white-space", "pre-wrap")
    assert_no_violation(page)
