"""The human checkout pages in process: an agent checks out through the API, a person (here:
requests, cookies and the form's CSRF token, no JavaScript) completes the order. Human and
agent_checkout also speak real HTTP (tests/test_checkout_concurrency.py; a browser:
tests/browser/)."""
import re
from datetime import timedelta
from decimal import Decimal
from urllib.parse import urljoin

import pytest
import requests
from django.utils import timezone

from cart.models import Cart, Order
from catalog.models import Product
from tests.api_client import API, IN_PROCESS_URL, AgentClient, ok_data
from tests.factories import make_product

TIMEOUT = 10
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
DETAILS = {"name": "Ada Lovelace", "email": "ada@example.com", "shipping_address": "1 Loom Lane\nLondon"}


class Human:
    """A person's browser: keeps cookies and the CSRF token of the last page it opened."""

    def __init__(self, checkout_url, http=requests):
        """`http`: requests, or tests/api_client.py's InProcessRequests."""
        self.url = checkout_url
        self.via = http
        self.http = http.Session()
        self.csrf = None

    def open(self):
        response = self.http.get(self.url, timeout=TIMEOUT)
        found = CSRF_FIELD.search(response.text)
        self.csrf = found.group(1) if found else self.csrf
        return response

    def post(self, action="", **fields):
        """POST a form of the page (`action` relative to the checkout URL), with the CSRF token."""
        data = {"csrfmiddlewaretoken": self.csrf, **fields}
        return self.http.post(urljoin(self.url, action), data=data, timeout=TIMEOUT)

    def confirm(self, **details):
        return self.post(**{**DETAILS, **details})


def agent_checkout(base_url, *items, django_client=None):
    """An agent session puts (item_id, quantity) pairs in its cart and checks out; returns the handoff
    (at `base_url`, or in process with `django_client`)."""
    agent = AgentClient(base_url, django_client=django_client)
    agent.start_session(agent_name="test-agent")
    for item_id, quantity in items:
        agent.add_to_cart(item_id, quantity)
    return ok_data(agent.post(f"{API}/checkout")), agent


@pytest.fixture
def mug(db):
    return make_product(public_id="speckled-mug", name="Speckled Mug", price=Decimal("24.00"), stock=10)


@pytest.fixture
def saucer(db):
    return make_product(public_id="saucer", name="Saucer", price=Decimal("7.50"), stock=10)


@pytest.fixture
def human(http, mug, saucer):
    handoff, _agent = agent_checkout(IN_PROCESS_URL, ("speckled-mug", 2), ("saucer", 1),
                                     django_client=http.django_client)
    human = Human(handoff["checkout_url"], http)
    assert human.open().status_code == 200
    return human


def stock(product):
    return Product.objects.get(pk=product.pk).stock


def the_order():
    return Order.objects.get()


def test_the_page_shows_what_the_agent_prepared_and_a_labelled_form(http, mug, saucer):
    handoff, _agent = agent_checkout(IN_PROCESS_URL, ("speckled-mug", 2), ("saucer", 1),
                                     django_client=http.django_client)
    response = http.get(handoff["checkout_url"], timeout=TIMEOUT)

    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert "no-store" in response.headers["Cache-Control"]
    html = response.text
    assert handoff["order_id"] in html
    assert "An AI agent prepared this cart for you." in html
    for text in ("Speckled Mug", "Saucer", "24.00 USD", "48.00 USD", "7.50 USD", "55.50 USD"):
        assert text in html
    for field, label in (("name", "Full name"), ("email", "Email"), ("shipping_address", "Shipping address"),
                         ("card_number", "Card number")):
        assert f'<label for="id_{field}">{label}' in html
        assert f'name="{field}"' in html
    assert ">Confirm order</button>" in html
    assert 'name="csrfmiddlewaretoken"' in html


def test_confirming_makes_a_real_order_and_shows_its_number(human, mug, saucer):
    response = human.confirm()

    assert response.status_code == 200
    assert response.history[0].status_code == 302  # POST, redirect, GET: a reload never resubmits
    order = the_order()
    assert order.status == Order.Status.CONFIRMED
    assert (order.customer_name, order.customer_email, order.shipping_address) == (
        "Ada Lovelace", "ada@example.com", "1 Loom Lane\nLondon"
    )
    assert (stock(mug), stock(saucer)) == (8, 9)
    assert "your order is confirmed" in response.text
    assert order.number in response.text
    assert "1 Loom Lane<br>London" in response.text
    assert 'name="csrfmiddlewaretoken"' not in response.text  # read-only: no form left


def test_after_confirmation_the_link_is_read_only(human, mug):
    human.confirm()
    confirmed = the_order()

    again = human.confirm(name="Someone Else", shipping_address="Elsewhere")
    cancel = human.post("cancel/")
    reduce = human.post(f"lines/{confirmed.lines.first().pk}/reduce/", quantity="1")
    bad_reduce = human.post(f"lines/{confirmed.lines.first().pk}/reduce/", quantity="many")

    for response in (again, cancel, reduce, bad_reduce):
        assert response.status_code == 200
        assert "your order is confirmed" in response.text
    order = the_order()
    assert (order.status, order.customer_name, order.confirmed_at) == (
        Order.Status.CONFIRMED, "Ada Lovelace", confirmed.confirmed_at
    )
    assert order.lines.first().quantity == 2
    assert stock(mug) == 8


def test_a_post_without_the_csrf_token_is_refused(human, mug):
    response = human.http.post(human.url, data=DETAILS, timeout=TIMEOUT)
    assert response.status_code == 403
    assert "CSRF" in response.text
    assert the_order().status == Order.Status.PENDING
    assert stock(mug) == 10


def test_invalid_details_show_the_form_again_with_the_problems(human, mug):
    response = human.confirm(email="not-an-email", shipping_address="")

    assert response.status_code == 400
    assert "Enter a valid email address." in response.text
    assert "This field is required." in response.text
    assert 'value="Ada Lovelace"' in response.text
    assert the_order().status == Order.Status.PENDING
    assert stock(mug) == 10


def test_the_decline_test_card_is_declined_and_another_card_can_retry(human, mug):
    declined = human.confirm(name="Grace Hopper", card_number="4000 0000 0000 0002")

    assert declined.status_code == 402
    assert "The demo payment was declined. Nothing was charged." in declined.text
    assert 'value="4000' not in declined.text  # the card number is not written back into the page
    assert the_order().status == Order.Status.DECLINED
    assert stock(mug) == 10
    reopened = human.open()
    assert "The last payment attempt was declined." in reopened.text
    assert 'value="Grace Hopper"' in reopened.text
    assert 'name="card_number"' in reopened.text and 'value="4000' not in reopened.text  # never kept

    confirmed = human.confirm(card_number="4242-4242-4242-4242")
    assert "your order is confirmed" in confirmed.text
    assert the_order().status == Order.Status.CONFIRMED
    assert stock(mug) == 8


def test_the_agent_holding_the_same_link_never_sees_what_the_human_typed(http, human, mug):
    """The agent gave the human this link and still holds it: the human's details come back only
    in the browser that typed them, before the order is paid and after."""
    agent = http.Session()
    declined = human.confirm(name="Grace Hopper", card_number="4000 0000 0000 0002")
    assert declined.status_code == 402
    assert 'value="Grace Hopper"' in human.open().text
    open_page = agent.get(human.url, timeout=TIMEOUT).text
    assert "The last payment attempt was declined." in open_page
    for detail in ("Grace Hopper", "ada@example.com", "Loom Lane"):
        assert detail not in open_page

    confirmed = human.confirm(name="Grace Hopper", card_number="4242-4242-4242-4242")
    assert "your order is confirmed" in confirmed.text and "1 Loom Lane<br>London" in confirmed.text
    seen_by_agent = agent.get(human.url, timeout=TIMEOUT).text
    assert "your order is confirmed" in seen_by_agent and the_order().number in seen_by_agent
    for detail in ("Grace Hopper", "Loom Lane"):
        assert detail not in seen_by_agent


def test_an_agent_that_typed_on_the_form_itself_never_sees_the_details_the_human_confirmed_with(human):
    """The agent's browser tries the form first (refused), then the human confirms: the agent's
    session holds details of its own, which are not the order's, so it is shown none."""
    agent = Human(human.url, human.via)
    agent.open()
    declined = agent.confirm(name="Agent Smith", shipping_address="9 Matrix Way", card_number="4000 0000 0000 0002")
    assert declined.status_code == 402

    confirmed = human.confirm(name="Alice Human", shipping_address="12 Secret Lane\nSpringfield",
                              card_number="4242 4242 4242 4242")
    assert "Alice Human" in confirmed.text and "12 Secret Lane<br>Springfield" in confirmed.text
    seen_by_agent = agent.open().text
    assert "your order is confirmed" in seen_by_agent
    for detail in ("Alice Human", "Secret Lane", "Agent Smith", "Matrix Way"):
        assert detail not in seen_by_agent


def test_the_link_answers_head_and_asks_search_engines_to_stay_away(human):
    head = human.http.head(human.url, timeout=TIMEOUT)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["X-Robots-Tag"] == "noindex, nofollow"
    assert human.open().headers["X-Robots-Tag"] == "noindex, nofollow"
    refused = human.post("cancel/", csrfmiddlewaretoken="")
    assert refused.status_code == 403  # CSRF: a HEAD or a page view changed nothing, a bare POST neither
    assert the_order().status == Order.Status.PENDING


def test_a_cut_short_link_explains_itself_on_the_shops_own_404_page(human):
    response = human.http.get(human.url.rstrip("/")[:-5] + "/", timeout=TIMEOUT)
    assert response.status_code == 404
    assert "ask the assistant for a new one" in response.text and "Acme Ceramics" in response.text


def test_the_pending_test_card_leaves_the_order_pending_until_another_card_pays(human, mug):
    pending = human.confirm(card_number="4000 0000 0000 3063")

    assert pending.status_code == 202
    assert "The demo payment is pending: the bank has not answered." in pending.text
    order = the_order()
    assert order.status == Order.Status.PENDING
    assert order.payment_reference.startswith("demo_pending_")
    assert order.confirmed_at is None
    assert stock(mug) == 10
    assert "The last payment attempt is still pending" in human.open().text

    confirmed = human.confirm(card_number="4242 4242 4242 4242")
    assert "your order is confirmed" in confirmed.text
    order = the_order()
    assert order.status == Order.Status.CONFIRMED
    assert order.payment_reference.startswith("demo_") and not order.payment_reference.startswith("demo_pending_")
    assert stock(mug) == 8


def test_a_decline_after_a_pending_attempt_forgets_the_pending_reference(human):
    human.confirm(card_number="4000 0000 0000 3063")
    human.confirm(card_number="4000 0000 0000 0002")
    assert (the_order().status, the_order().payment_reference) == (Order.Status.DECLINED, "")
    assert "still pending" not in human.open().text


@pytest.mark.parametrize("card_number", ["4242 4242 4242 4243", "1234", "4242 4242 4242 424x", "٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢"])
def test_an_invalid_card_number_shows_the_form_again_and_charges_nothing(human, mug, card_number):
    response = human.confirm(card_number=card_number)

    assert response.status_code == 400
    assert "Enter a valid card number of 12 to 19 digits" in response.text
    assert the_order().status == Order.Status.PENDING
    assert stock(mug) == 10


def test_the_page_lists_the_demo_test_cards(human):
    page = human.open().text
    for card in ("4242 4242 4242 4242", "4000 0000 0000 0002", "4000 0000 0000 3063"):
        assert card in page


def test_an_expired_link_explains_itself_with_410_and_changes_nothing(human, mug):
    Order.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    page = human.open()
    submit = human.confirm()

    for response in (page, submit):
        assert response.status_code == 410
        assert "This checkout link has expired" in response.text
        assert "Speckled Mug" not in response.text
    assert the_order().status == Order.Status.EXPIRED
    assert stock(mug) == 10


def test_an_unknown_link_is_404(http, human):
    response = http.get(f"{IN_PROCESS_URL}/checkout/{'x' * 43}/", timeout=TIMEOUT)
    assert response.status_code == 404
    assert the_order().status == Order.Status.PENDING


def test_the_link_carries_an_unguessable_token_stored_only_as_a_hash(human):
    token = human.url.rstrip("/").rsplit("/", 1)[1]
    assert len(token) >= 43  # 32 random bytes, base64url
    assert the_order().handoff_token_hash != token
    assert token not in str(Order.objects.values().get())


def test_cancelling_closes_the_order_for_good(human, mug):
    response = human.post("cancel/")

    assert response.status_code == 200
    assert "This order was cancelled" in response.text
    assert the_order().status == Order.Status.CANCELLED
    after = human.confirm()
    assert "This order was cancelled" in after.text
    assert the_order().status == Order.Status.CANCELLED
    assert stock(mug) == 10


def test_a_line_stock_no_longer_covers_is_flagged_and_can_be_reduced(human, mug):
    Product.objects.filter(pk=mug.pk).update(stock=1)

    page = human.open()
    assert "Only 1 left" in page.text
    assert "Reduce Speckled Mug to 1" in page.text
    refused = human.confirm()
    assert refused.status_code == 409
    assert "Only 1 of Speckled Mug left, but the order has 2" in refused.text
    assert stock(mug) == 1

    mug_line = the_order().lines.get(product_public_id="speckled-mug")
    reduced = human.post(f"lines/{mug_line.pk}/reduce/", quantity="1")
    assert reduced.status_code == 200
    assert "31.50 USD" in reduced.text and "Only 1 left" not in reduced.text

    confirmed = human.confirm()
    assert "your order is confirmed" in confirmed.text
    assert stock(mug) == 0
    assert the_order().subtotal == Decimal("31.50")


def test_an_item_that_sold_out_can_be_removed(human, saucer):
    Product.objects.filter(pk=saucer.pk).update(stock=0)
    assert "Remove Saucer" in human.open().text
    saucer_line = the_order().lines.get(product_public_id="saucer")

    human.post(f"lines/{saucer_line.pk}/reduce/", quantity="0")

    order = the_order()
    assert list(order.lines.values_list("product_public_id", flat=True)) == ["speckled-mug"]
    assert order.subtotal == Decimal("48.00")


def test_a_sold_out_only_item_offers_no_remove_button_that_would_fail_only_cancelling(http, mug):
    handoff, _agent = agent_checkout(IN_PROCESS_URL, ("speckled-mug", 1), django_client=http.django_client)
    human = Human(handoff["checkout_url"], http)
    Product.objects.filter(pk=mug.pk).update(stock=0)
    page = human.open().text
    assert "Sold out, and it is the only item: the order can only be cancelled (below)." in page
    assert "Remove Speckled Mug" not in page and "/reduce/" not in page and "Cancel order" in page
    refused = human.confirm()
    assert refused.status_code == 409
    assert "Speckled Mug is sold out and it is the only item in the order: cancel the order." in refused.text
    assert "cancelled" in human.post("cancel/").text


def test_a_bad_reduce_request_is_400(human):
    mug_line = the_order().lines.get(product_public_id="speckled-mug")
    for quantity in ("3", "many"):
        response = human.post(f"lines/{mug_line.pk}/reduce/", quantity=quantity)
        assert response.status_code == 400
        assert "Choose a quantity below the one in the order." in response.text
    assert the_order().lines.get(pk=mug_line.pk).quantity == 2


def test_actions_refuse_other_methods(human):
    assert human.http.get(urljoin(human.url, "cancel/"), timeout=TIMEOUT).status_code == 405
    assert human.http.put(human.url, headers={"X-CSRFToken": human.csrf}, timeout=TIMEOUT).status_code == 405
    assert the_order().status == Order.Status.PENDING


def test_the_frozen_cart_cannot_be_changed_through_the_api(http, mug):
    handoff, agent = agent_checkout(IN_PROCESS_URL, ("speckled-mug", 2), django_client=http.django_client)
    frozen = Cart.objects.get(status=Cart.Status.FROZEN)

    agent.add_to_cart("speckled-mug", 5)
    ok_data(agent.put(f"{API}/cart/update", {"item_id": "speckled-mug", "quantity": 1}))

    assert agent.cart()["items"][0]["quantity"] == 1
    assert frozen.lines.get().quantity == 2
    assert the_order().lines.get().quantity == 2
    assert Cart.objects.get(status=Cart.Status.OPEN).pk != frozen.pk
    page = http.get(handoff["checkout_url"], timeout=TIMEOUT)
    assert "48.00 USD" in page.text
