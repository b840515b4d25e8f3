"""Each built-in capability in process (the API's real-HTTP path: tests/test_api_purchase_flow.py): its answer
shape, its rules and its refusals."""
from decimal import Decimal

import pytest

from acme.models import ContactMessage
from agents_protocol.core.config import bump_revision
from agents_protocol.models import CapabilityParam
from cart.models import Order
from tests.api_client import API, IN_PROCESS_URL, AgentClient, assert_error, ok_data
from tests.factories import make_category, make_product


@pytest.fixture
def agent(site_client):
    return AgentClient(django_client=site_client)


@pytest.fixture
def shopper(site_client):
    client = AgentClient(django_client=site_client)
    client.start_session()
    return client


def ids(items):
    return [item["id"] for item in items]


# search


def test_search_ranks_name_matches_before_description_matches(agent):
    in_description = make_product(name="Alpha Bowl", description="Glazed like a teapot spout.")
    in_name = make_product(name="Zulu Teapot", description="Holds four cups.")
    make_product(name="Plain Plate", description="Nothing to see.")

    found = ok_data(agent.get(f"{API}/search", {"q": "teapot"}))

    assert ids(found["results"]) == [in_name.public_id, in_description.public_id]
    assert (found["total"], found["page"], found["limit"]) == (2, 1, 20)


def test_search_pages_through_results(agent):
    for index in range(3):
        make_product(name=f"Mug {index}")
    second = ok_data(agent.get(f"{API}/search", {"q": "mug", "page": 2, "limit": 2}))
    assert ids(second["results"]) and len(second["results"]) == 1
    assert (second["total"], second["page"], second["limit"]) == (3, 2, 2)


def test_search_results_carry_server_prices_and_page_urls(agent):
    mug = make_product(name="Speckled Mug", price=Decimal("36.00"))
    response = agent.get(f"{API}/search", {"q": "speckled"})
    result = ok_data(response)["results"][0]
    assert result["url"] == f"{IN_PROCESS_URL}{mug.get_absolute_url()}"
    assert result["currency"] == "USD"
    assert '"price":36.00' in response.text


@pytest.mark.parametrize("params, field", [
    ({}, "q"),
    ({"q": ""}, "q"),
    ({"q": "   "}, "q"),
    ({"q": "x" * 201}, "q"),
    ({"q": "mug", "page": 0}, "page"),
    ({"q": "mug", "limit": 0}, "limit"),
    ({"q": "mug", "limit": 101}, "limit"),
    ({"q": "mug", "page": "two"}, "page"),
])
def test_search_refuses_bad_parameters(agent, params, field):
    body = assert_error(agent.get(f"{API}/search", params), 400, "invalid_params")
    assert field in body["fields"]


def test_search_accepts_a_query_of_exactly_200_characters_and_a_limit_of_100(agent):
    found = ok_data(agent.get(f"{API}/search", {"q": "x" * 200, "limit": 100}))
    assert found["results"] == [] and found["limit"] == 100


# browse


@pytest.fixture
def shelf():
    """Three products of one category, created cheapest-in-the-middle, plus one elsewhere."""
    vases = make_category(slug="vases")
    made = [make_product(category=vases, price=Decimal(price)) for price in ("20.00", "5.00", "80.00")]
    make_product(price=Decimal("1.00"))
    return made


@pytest.mark.parametrize("sort, expected_order", [
    ("price_asc", [1, 0, 2]),
    ("price_desc", [2, 0, 1]),
    ("newest", [2, 1, 0]),
])
def test_browse_sorts_a_category_as_asked(agent, shelf, sort, expected_order):
    listed = ok_data(agent.get(f"{API}/browse", {"category": "vases", "sort": sort}))
    assert ids(listed["items"]) == [shelf[index].public_id for index in expected_order]
    assert (listed["total"], listed["page"], listed["limit"]) == (3, 1, 20)


def test_browse_defaults_to_newest_over_every_category(agent, shelf):
    listed = ok_data(agent.get(f"{API}/browse"))
    assert listed["total"] == 4
    assert ids(listed["items"])[1:] == [shelf[2].public_id, shelf[1].public_id, shelf[0].public_id]


def test_browse_pages_with_limit(agent, shelf):
    listed = ok_data(agent.get(f"{API}/browse", {"category": "vases", "sort": "price_asc", "page": 2, "limit": 2}))
    assert ids(listed["items"]) == [shelf[2].public_id]
    assert (listed["total"], listed["page"], listed["limit"]) == (3, 2, 2)


def test_browse_an_unknown_category_is_404_naming_the_known_ones(agent, shelf):
    body = assert_error(agent.get(f"{API}/browse", {"category": "spoons"}), 404, "unknown_category")
    assert "vases" in body["error"]


def test_browse_an_unknown_sort_is_400(agent):
    body = assert_error(agent.get(f"{API}/browse", {"sort": "cheapest"}), 400, "invalid_params")
    assert "price_asc" in body["fields"]["sort"]


def test_a_page_below_one_let_through_by_an_old_configuration_is_400_and_the_documents_still_serve(agent, shelf,
                                                                                                   http):
    # Saved before admin required a minimum of 1 (queryset updates skip clean()).
    CapabilityParam.objects.filter(capability__name__in=["browse", "search"], name="page").update(minimum=None,
                                                                                                  default=0)
    bump_revision()
    body = assert_error(agent.get(f"{API}/browse"), 400, "invalid_params")
    assert body["fields"] == {"page": "Must be an integer of at least 1."}
    assert_error(agent.get(f"{API}/search", {"q": "mug", "page": -1}), 400, "invalid_params")
    for document in ("pactspec.json", "agent-card.json", "agents.json"):
        assert http.get(f"{IN_PROCESS_URL}/.well-known/{document}", timeout=10).status_code == 200


# detail


def test_detail_gives_stock_status_and_a_page_url_that_serves_the_product(agent, http):
    jar = make_product(name="Moon Jar", stock=3, price=Decimal("140.00"))
    item = ok_data(agent.get(f"{API}/detail/{jar.public_id}"))

    assert item["id"] == jar.public_id and item["name"] == "Moon Jar"
    assert (item["stock"], item["stock_status"], item["in_stock"]) == (3, "low_stock", True)
    assert item["url"] == f"{IN_PROCESS_URL}{jar.get_absolute_url()}"
    page = http.get(item["url"], timeout=10)
    assert page.status_code == 200 and "Moon Jar" in page.text


def test_detail_says_out_of_stock(agent):
    sold_out = make_product(stock=0)
    item = ok_data(agent.get(f"{API}/detail/{sold_out.public_id}"))
    assert (item["stock_status"], item["in_stock"]) == ("out_of_stock", False)


def test_detail_of_an_unknown_or_inactive_product_is_404(agent):
    hidden = make_product(is_active=False)
    assert_error(agent.get(f"{API}/detail/no-such-mug"), 404, "unknown_item")
    assert_error(agent.get(f"{API}/detail/{hidden.public_id}"), 404, "unknown_item")


# cart


def test_cart_add_uses_server_prices_whatever_the_agent_sends(shopper):
    mug = make_product(name="Speckled Mug", price=Decimal("36.00"))
    response = shopper.post(
        f"{API}/cart/add", {"item_id": mug.public_id, "quantity": 2, "price": 0.01, "name": "Free mug"}
    )
    added = ok_data(response)

    assert (added["item_id"], added["quantity"], added["cart_size"]) == (mug.public_id, 2, 1)
    line = added["cart"]["items"][0]
    assert (line["name"], line["unit_price"], line["line_total"]) == ("Speckled Mug", 36.0, 72.0)
    assert '"subtotal":72.00' in response.text and '"unit_price":36.00' in response.text


def test_cart_view_prices_at_the_current_server_price(shopper):
    mug = make_product(price=Decimal("36.00"))
    shopper.add_to_cart(mug.public_id, 2)
    mug.price = Decimal("40.00")
    mug.save()
    response = shopper.get(f"{API}/cart/view")
    assert '"unit_price":40.00' in response.text and '"subtotal":80.00' in response.text


def test_cart_add_defaults_to_one_and_adds_up_on_one_line(shopper):
    mug = make_product()
    assert shopper.add_to_cart(mug.public_id)["quantity"] == 1
    added = ok_data(shopper.post(f"{API}/cart/add", {"item_id": mug.public_id}))
    assert (added["quantity"], added["cart_size"]) == (2, 1)


def test_cart_view_lists_items_subtotal_currency_and_size(shopper):
    mug, bowl = make_product(price=Decimal("12.50")), make_product(price=Decimal("30.00"))
    shopper.add_to_cart(mug.public_id, 2)
    shopper.add_to_cart(bowl.public_id)
    response = shopper.get(f"{API}/cart/view")
    cart = ok_data(response)

    assert {item["item_id"]: item["quantity"] for item in cart["items"]} == {mug.public_id: 2, bowl.public_id: 1}
    assert (cart["currency"], cart["cart_size"]) == ("USD", 2)
    assert '"subtotal":55.00' in response.text


def test_cart_add_of_an_unknown_item_is_404(shopper):
    assert_error(shopper.post(f"{API}/cart/add", {"item_id": "no-such-mug"}), 404, "unknown_item")


@pytest.mark.parametrize("quantity", [0, -1])
def test_cart_add_of_a_non_positive_quantity_is_400(shopper, quantity):
    mug = make_product()
    body = assert_error(shopper.post(f"{API}/cart/add", {"item_id": mug.public_id, "quantity": quantity}),
                        400, "invalid_params")  # the declared minimum, checked before the provider
    assert body["fields"] == {"quantity": "Must be an integer from 1 to 20."}


@pytest.mark.parametrize("quantity", [1.5, "2", True, [1]])
def test_cart_add_of_a_quantity_that_is_not_an_integer_is_400(shopper, quantity):
    mug = make_product()
    body = assert_error(shopper.post(f"{API}/cart/add", {"item_id": mug.public_id, "quantity": quantity}),
                        400, "invalid_params")
    assert body["fields"] == {"quantity": "Must be an integer from 1 to 20."}
    assert shopper.cart()["items"] == []


def test_cart_add_above_the_configured_maximum_is_400(shopper, settings):
    settings.CART_MAX_QUANTITY = 3
    mug = make_product(stock=50)
    shopper.add_to_cart(mug.public_id, 3)
    assert_error(shopper.post(f"{API}/cart/add", {"item_id": mug.public_id, "quantity": 1}),
                 400, "quantity_above_maximum")
    assert shopper.cart()["items"][0]["quantity"] == 3


def test_cart_add_above_the_stock_is_400(shopper):
    jar = make_product(stock=2)
    assert_error(shopper.post(f"{API}/cart/add", {"item_id": jar.public_id, "quantity": 3}),
                 400, "insufficient_stock")


def test_cart_update_sets_the_quantity_and_zero_removes_the_line(shopper):
    mug = make_product()
    shopper.add_to_cart(mug.public_id)
    updated = ok_data(shopper.put(f"{API}/cart/update", {"item_id": mug.public_id, "quantity": 4}))
    assert (updated["quantity"], updated["cart"]["items"][0]["quantity"]) == (4, 4)

    removed = ok_data(shopper.put(f"{API}/cart/update", {"item_id": mug.public_id, "quantity": 0}))
    assert removed["removed"] is True and removed["cart"]["items"] == []


@pytest.mark.parametrize("params, code", [
    ({"quantity": 2}, "invalid_params"),
    ({"item_id": "MUG"}, "invalid_params"),
    ({"item_id": "MUG", "quantity": -1}, "invalid_params"),
    ({"item_id": "MUG", "quantity": 2.5}, "invalid_params"),
    ({"item_id": "MUG", "quantity": 21}, "invalid_params"),  # above the cart's maximum, which is published
])
def test_cart_update_refuses_bad_input(shopper, params, code):
    mug = make_product(stock=50)
    shopper.add_to_cart(mug.public_id)
    params = {key: mug.public_id if value == "MUG" else value for key, value in params.items()}
    assert_error(shopper.put(f"{API}/cart/update", params), 400, code)
    assert shopper.cart()["items"][0]["quantity"] == 1


def test_cart_update_of_an_item_not_in_the_cart_is_404(shopper):
    assert_error(shopper.put(f"{API}/cart/update", {"item_id": make_product().public_id, "quantity": 1}),
                 404, "item_not_in_cart")


def test_cart_remove_takes_the_item_from_a_json_body_or_the_query_string(shopper):
    mug, bowl = make_product(), make_product()
    shopper.add_to_cart(mug.public_id)
    shopper.add_to_cart(bowl.public_id)

    from_body = ok_data(shopper.delete(f"{API}/cart/remove", {"item_id": mug.public_id}))
    assert [item["item_id"] for item in from_body["cart"]["items"]] == [bowl.public_id]
    from_query = ok_data(shopper.delete(f"{API}/cart/remove?item_id={bowl.public_id}"))
    assert from_query["removed"] is True and from_query["cart"]["items"] == []


def test_cart_remove_of_an_item_not_in_the_cart_or_unknown_is_404(shopper):
    assert_error(shopper.delete(f"{API}/cart/remove", {"item_id": make_product().public_id}),
                 404, "item_not_in_cart")
    assert_error(shopper.delete(f"{API}/cart/remove", {"item_id": "no-such-mug"}), 404, "unknown_item")


# checkout


def test_checkout_of_an_empty_cart_is_400(shopper):
    assert_error(shopper.post(f"{API}/checkout"), 409, "cart_empty")


def test_checkout_hands_an_absolute_url_to_the_human_and_starts_a_new_cart(shopper, http):
    mug = make_product(name="Speckled Mug")
    shopper.add_to_cart(mug.public_id, 2)
    handoff = ok_data(shopper.post(f"{API}/checkout"))

    assert handoff["human_handoff"] is True
    assert handoff["checkout_url"].startswith(f"{IN_PROCESS_URL}/checkout/")
    assert handoff["expires_at"].endswith("Z") and "human" in handoff["message"]
    page = http.get(handoff["checkout_url"], timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert "Speckled Mug" in page.text
    assert Order.objects.get().lines.get().quantity == 2
    assert shopper.cart()["items"] == []
    assert_error(shopper.post(f"{API}/checkout"), 409, "cart_empty")


def test_checkout_refuses_a_cart_the_stock_no_longer_covers(shopper):
    jar = make_product(stock=3)
    shopper.add_to_cart(jar.public_id, 3)
    jar.stock = 1
    jar.save()
    assert_error(shopper.post(f"{API}/checkout"), 400, "insufficient_stock")
    assert shopper.cart()["items"][0]["quantity"] == 3


# contact


def test_contact_is_stored_and_emailed_to_the_shop(agent, mailoutbox, settings):
    sent = ok_data(agent.post(f"{API}/contact", {
        "name": "Ada", "email": "ada@example.com", "message": "Do you ship to Lisbon?",
    }))

    stored = ContactMessage.objects.get()
    assert sent == {"sent": True, "received": True, "message_id": stored.pk}  # sent: interaction-api.md
    assert (stored.name, stored.email, stored.message) == ("Ada", "ada@example.com", "Do you ship to Lisbon?")
    assert len(mailoutbox) == 1
    email = mailoutbox[0]
    assert email.to == [settings.SHOP_CONTACT_EMAIL] and email.reply_to == ["ada@example.com"]
    assert email.body == "Do you ship to Lisbon?" and "Ada" in email.subject


def test_contact_from_a_session_is_linked_to_it(shopper, mailoutbox):
    ok_data(shopper.post(f"{API}/contact", {"name": "Ada", "email": "ada@example.com", "message": "Hi"}))
    assert ContactMessage.objects.get().agent_session is not None


VALID_CONTACT = {"name": "Ada", "email": "ada@example.com", "message": "Hello"}


LONGEST_DOMAIN = ".".join(["b" * 63, "c" * 63, "d" * 63, "e" * 59 + ".com"])  # 255 characters


def email_of_length(length):
    return "a" * (length - 1 - len(LONGEST_DOMAIN)) + "@" + LONGEST_DOMAIN


@pytest.mark.parametrize("field, value", [
    ("name", ""),
    ("name", "x" * 201),
    ("email", "not-an-email"),
    ("email", email_of_length(321)),
    ("message", ""),
    ("message", "x" * 5001),
    ("message", None),
])
def test_contact_refuses_out_of_range_fields_and_sends_nothing(agent, mailoutbox, field, value):
    params = {**VALID_CONTACT, field: value}
    if value is None:
        del params[field]
    body = assert_error(agent.post(f"{API}/contact", params), 400, "invalid_params")
    assert field in body["fields"]
    assert ContactMessage.objects.count() == 0 and mailoutbox == []


def test_contact_accepts_the_longest_allowed_fields(agent, mailoutbox):
    params = {"name": "x" * 200, "email": email_of_length(320), "message": "x" * 5000}
    ok_data(agent.post(f"{API}/contact", params))
    assert len(mailoutbox) == 1
