"""A person completes, in headless Chromium, the checkout an agent prepared over the API."""
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from cart.models import Order
from catalog.models import Product
from tests.factories import make_product
from tests.test_checkout_pages import agent_checkout

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def handoff(live_server):
    """An agent session (over HTTP) put 2 mugs and 1 saucer in its cart and checked out."""
    make_product(public_id="speckled-mug", name="Speckled Mug", price=Decimal("24.00"), stock=10)
    make_product(public_id="saucer", name="Saucer", price=Decimal("7.50"), stock=10)
    handoff, _agent = agent_checkout(live_server.url, ("speckled-mug", 2), ("saucer", 1))
    return handoff


@pytest.fixture
def page_without_javascript(browser, request):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    call_report = getattr(request.node, "report_call", None)
    if call_report is not None and call_report.failed:
        artifacts = request.config.rootpath / "test-artifacts"
        artifacts.mkdir(exist_ok=True)
        page.screenshot(path=artifacts / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', request.node.nodeid)}.png")
    context.close()


def fill_details(page, name="Ada Lovelace", card_number=""):
    page.get_by_label("Full name").fill(name)
    page.get_by_label("Card number").fill(card_number)
    page.get_by_label("Email").fill("ada@example.com")
    page.get_by_label("Shipping address").fill("1 Loom Lane\nLondon")


def expect_confirmation(page, handoff):
    expect(page.get_by_role("heading", level=1)).to_have_text("Thank you, your order is confirmed")
    expect(page.locator(".handoff-order-number")).to_have_text(handoff["order_id"])


def test_a_person_reviews_the_agents_cart_and_confirms(handoff, page):
    response = page.goto(handoff["checkout_url"])

    assert response.status == 200
    expect(page.get_by_text("An AI agent prepared this cart for you.")).to_be_visible()
    expect(page.get_by_role("row", name=re.compile("^Speckled Mug"))).to_contain_text("24.00 USD 2 48.00 USD")
    expect(page.get_by_role("row", name=re.compile("^Saucer"))).to_contain_text("7.50 USD 1 7.50 USD")
    expect(page.get_by_role("row", name=re.compile("^Subtotal"))).to_contain_text("55.50 USD")
    expect(page.get_by_text(handoff["order_id"])).to_be_visible()

    fill_details(page)
    page.get_by_role("button", name="Confirm order").click()

    expect_confirmation(page, handoff)
    expect(page.get_by_text("1 Loom Lane")).to_be_visible()
    order = Order.objects.get(number=handoff["order_id"])
    assert order.status == Order.Status.CONFIRMED
    assert Product.objects.get(public_id="speckled-mug").stock == 8

    page.reload()
    expect_confirmation(page, handoff)
    expect(page.get_by_role("button", name="Confirm order")).to_have_count(0)


def test_a_declined_payment_is_explained_and_a_retry_succeeds(handoff, page):
    page.goto(handoff["checkout_url"])
    expect(page.get_by_text("4000 0000 0000 0002 is declined")).to_be_visible()

    fill_details(page, name="Grace Hopper", card_number="4000 0000 0000 0002")
    page.get_by_role("button", name="Confirm order").click()

    expect(page.get_by_role("alert")).to_have_text("The demo payment was declined. Nothing was charged.")
    expect(page.get_by_label("Full name")).to_have_value("Grace Hopper")
    expect(page.get_by_label("Card number")).to_have_value("")
    assert Order.objects.get().status == Order.Status.DECLINED
    assert Product.objects.get(public_id="speckled-mug").stock == 10

    page.get_by_label("Card number").fill("4242 4242 4242 4242")
    page.get_by_role("button", name="Confirm order").click()

    expect_confirmation(page, handoff)
    assert Order.objects.get().status == Order.Status.CONFIRMED


def test_a_pending_payment_keeps_the_order_pending_and_says_so(handoff, page):
    page.goto(handoff["checkout_url"])
    expect(page.get_by_text("4000 0000 0000 3063 stays pending")).to_be_visible()

    fill_details(page, card_number="4000 0000 0000 3063")
    page.get_by_role("button", name="Confirm order").click()

    expect(page.get_by_role("alert")).to_contain_text("The demo payment is pending")
    assert Order.objects.get().status == Order.Status.PENDING
    page.goto(handoff["checkout_url"])
    expect(page.get_by_role("alert")).to_contain_text("The last payment attempt is still pending")
    expect(page.get_by_role("button", name="Confirm order")).to_be_visible()


def test_an_expired_link_shows_an_explanation(handoff, page):
    Order.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    response = page.goto(handoff["checkout_url"])

    assert response.status == 410
    expect(page.get_by_role("heading", level=1)).to_have_text("This checkout link has expired")
    expect(page.get_by_text("Nothing was ordered or paid.")).to_be_visible()
    expect(page.get_by_label("Full name")).to_have_count(0)


def test_the_form_works_without_javascript(handoff, page_without_javascript):
    page = page_without_javascript
    page.goto(handoff["checkout_url"])

    fill_details(page)
    page.get_by_role("button", name="Confirm order").click()

    expect_confirmation(page, handoff)
    assert Order.objects.get().status == Order.Status.CONFIRMED


def test_a_form_without_its_csrf_token_is_refused(handoff, page):
    page.goto(handoff["checkout_url"])
    page.locator(".handoff-details input[name=csrfmiddlewaretoken]").evaluate("input => input.remove()")
    fill_details(page)

    with page.expect_response(handoff["checkout_url"]) as submitted:
        page.get_by_role("button", name="Confirm order").click()

    assert submitted.value.status == 403
    assert Order.objects.get().status == Order.Status.PENDING


def test_a_line_that_ran_short_is_reduced_before_confirming(handoff, page):
    Product.objects.filter(public_id="speckled-mug").update(stock=1)
    page.goto(handoff["checkout_url"])
    expect(page.get_by_text("Only 1 left")).to_be_visible()

    fill_details(page)
    page.get_by_role("button", name="Confirm order").click()
    expect(page.get_by_role("alert")).to_contain_text("Only 1 of Speckled Mug left, but the order has 2")

    page.get_by_role("button", name="Reduce Speckled Mug to 1").click()
    expect(page.get_by_role("row", name=re.compile("^Subtotal"))).to_contain_text("31.50 USD")
    expect(page.get_by_text("Only 1 left")).to_have_count(0)
    expect(page.get_by_label("Shipping address")).to_have_value("1 Loom Lane\nLondon")

    page.get_by_role("button", name="Confirm order").click()

    expect_confirmation(page, handoff)
    assert Product.objects.get(public_id="speckled-mug").stock == 0


def test_the_page_fits_a_phone_screen_even_with_a_short_line(handoff, page):
    Product.objects.filter(public_id="speckled-mug").update(stock=1)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(handoff["checkout_url"])

    expect(page.get_by_role("button", name="Reduce Speckled Mug to 1")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_person_can_cancel_instead(handoff, page):
    page.goto(handoff["checkout_url"])

    page.get_by_role("button", name="Cancel order").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("This order was cancelled")
    assert Order.objects.get().status == Order.Status.CANCELLED
