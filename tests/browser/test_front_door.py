"""The home page's fold for agent developers in headless Chromium: closed, the shop looks as it did;
opened, it shows the well-known URLs, the scenarios and the example, with no CSP violation."""
import pytest
from playwright.sync_api import expect

from tests.browser.test_security_csp import assert_no_violation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_developer_opens_the_fold_and_follows_it_to_its_page(live_server, watched_page):
    page = watched_page
    page.goto(live_server.url + "/")
    fold = page.locator("details.agent-door-fold")
    expect(fold.locator(".agent-door__code")).not_to_be_visible()

    fold.get_by_text("Building an AI agent? Test it against this shop").click()

    expect(fold.get_by_role("link", name="/.well-known/agents.json")).to_be_visible()
    expect(fold.get_by_text("sandbox:rate-limit")).to_be_visible()
    expect(fold.locator(".agent-door__code")).to_contain_text(f'api = "{live_server.url}/.well-known/agents/api"')
    fold.get_by_role("link", name="This guide on its own page").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("For agent developers")
    expect(page.locator(".agent-door__code")).to_contain_text("checkout_url")
    assert_no_violation(page)
