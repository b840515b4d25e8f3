"""The inspector writes a cart's amounts as the API does, with the currency's decimals (JSON.parse
turns 72.00 into 72), and names each line by its item_id."""
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from tests.api_client import AgentClient
from tests.browser.test_security_csp import assert_no_violation
from tests.factories import make_product

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("key_file")]


def test_the_cart_shows_ids_and_amounts_with_the_currencys_decimals(live_server, watched_page):
    make_product(public_id="mug", name="Celadon mug", price=Decimal("36.00"), stock=10)
    agent = AgentClient(live_server.url)
    created = agent.start_session(agent_name="money")
    agent.add_to_cart("mug", 2)

    watched_page.goto(created["inspect_url"])
    expect(watched_page.locator("#cart")).to_contain_text("2 × Celadon mug (mug) · 72.00 USD")
    expect(watched_page.locator("#cart")).to_contain_text("Subtotal: 72.00 USD")
    assert_no_violation(watched_page)
