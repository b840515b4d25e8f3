"""/developers/ in headless Chromium: with ACP on, a developer asks for a test-mode key with the
form (its CSRF token and all), gets it shown once, and a platform call with it works; no CSP
violation."""
import re

import pytest
import requests
from playwright.sync_api import expect

from agents_protocol.checkout.models import CommerceConfig
from tests.acp_support import VERSION, create_body, load_shop
from tests.browser.test_security_csp import assert_no_violation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_developer_gets_a_test_key_that_works(live_server, watched_page, tmp_path):
    load_shop(tmp_path)
    page = watched_page
    page.goto(live_server.url + "/developers/")
    page.get_by_label("Your agent's name").fill("Browser agent")
    page.get_by_role("button", name="Get a test-mode key").click()

    key_field = page.get_by_label("Your test-mode API key")
    expect(key_field).to_have_value(re.compile(r"^acp_test_"))
    key = key_field.input_value()
    created = requests.post(f"{live_server.url}/checkout_sessions", json=create_body(), timeout=10, headers={
        "Authorization": f"Bearer {key}", "API-Version": VERSION, "Idempotency-Key": "browser-1"})
    assert created.status_code == 201
    assert [h["id"] for h in created.json()["capabilities"]["payment"]["handlers"]] == ["mock_payment_handler"]
    assert_no_violation(page)


def test_without_acp_the_page_offers_no_key(live_server, watched_page):
    assert not CommerceConfig.load().acp_enabled
    watched_page.goto(live_server.url + "/developers/")
    expect(watched_page.get_by_role("heading", level=1)).to_have_text("For agent developers")
    expect(watched_page.get_by_role("button", name="Get a test-mode key")).to_have_count(0)
