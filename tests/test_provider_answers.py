"""A provider's answers as the documents declare them, in process: one cart line, declared once
(core/outputs.py), typed in every document that publishes a cart, checked on every provider's
answer and shown by the inspector with the currency's decimals; an item's url absolute, as the
`uri` format says, when the provider gives a path."""
from collections import OrderedDict, namedtuple
from decimal import Decimal

import pytest
from jsonschema import Draft202012Validator

from agents_protocol.core.capabilities import declared_output, registered_names
from agents_protocol.core.outputs import DETAIL, SEARCH, NotTheDeclaredShape, published
from agents_protocol.core.provider import ItemPage, ShopProvider
from tests.factories import make_product
from tests.test_published_rules import API, JSON, accepts, call, openapi, operation, refusal, session

pytestmark = pytest.mark.django_db


def test_the_cart_line_is_typed_in_the_documents_and_the_answer_matches_it(client):
    mug = make_product(stock=5, price=Decimal("36.00"))
    token = session(client)
    call(client, "post", f"{API}/cart/add", {"item_id": mug.public_id, "quantity": 2}, token)
    document = openapi(client)
    data_schema = operation(document, f"{API}/cart/view", "get")["responses"]["200"]["content"][JSON][
        "schema"]["properties"]["data"]
    line = data_schema["properties"]["items"]["items"]
    assert line["required"] == ["item_id", "name", "unit_price", "quantity", "line_total", "currency"]
    answer = call(client, "get", f"{API}/cart/view", token=token).json()["data"]
    assert accepts(data_schema, answer)
    pactspec = client.get("/.well-known/pactspec.json").json()
    cart_view = next(skill for skill in pactspec["skills"] if skill["id"] == "cart-view")
    assert cart_view["outputSchema"]["properties"]["items"]["items"] == line


class OtherShapeProvider(ShopProvider):
    """Cart lines with `id` and `price`, the shape some providers had before it was declared."""

    def cart_view(self, context):
        return {"items": [{"id": "cup", "name": "Cup", "price": Decimal("18"), "quantity": 1, "line_total": 18,
                           "currency": "USD"}], "subtotal": 18, "currency": "USD", "cart_size": 1}


@pytest.fixture
def other_shop(settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "PROVIDER": f"{__name__}.OtherShapeProvider"}


def test_a_cart_line_of_another_shape_is_the_providers_error_not_an_answer(client, other_shop, caplog):
    token = session(client)
    answer = call(client, "get", f"{API}/cart/view", token=token)
    assert refusal(answer, 500, "internal_error")
    assert "no item_id; no unit_price" in caplog.text


def test_the_inspector_writes_amounts_with_the_currencys_decimals(client):
    mug = make_product(stock=5, price=Decimal("36.00"))
    created = client.post(f"{API}/session", data="{}", content_type=JSON).json()["data"]
    call(client, "post", f"{API}/cart/add", {"item_id": mug.public_id, "quantity": 2}, created["session_token"])
    state = client.get(f"{created['inspect_url']}/state").json()["data"]
    assert state["cart"]["decimals"] == {"USD": 2}  # the page writes 72 as 72.00 (tests/browser/test_inspector_money.py)


class PathUrlProvider(ShopProvider):
    """Items whose url is a path, as get_absolute_url() gives it, beside an absolute one."""

    def search(self, context, *, query, page, limit):
        return ItemPage([{"id": "cup", "name": "Cup", "url": "/cups/cup/"},
                         {"id": "pot", "name": "Pot", "url": "https://cdn.example/pot"}], 2)


@pytest.fixture
def path_url_shop(settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "PROVIDER": f"{__name__}.PathUrlProvider"}


def test_a_providers_relative_url_is_answered_absolute_as_the_uri_format_says(client, path_url_shop):
    results = client.get(f"{API}/search", {"q": "cup"}).json()["data"]["results"]
    assert [item["url"] for item in results] == ["http://testserver/cups/cup/", "https://cdn.example/pot"]
    item_schema = operation(openapi(client), f"{API}/search", "get")["responses"]["200"]["content"][JSON][
        "schema"]["properties"]["data"]["properties"]["results"]["items"]
    assert all(accepts(item_schema, item) for item in results)


def test_the_declaration_writes_what_it_declares_and_refuses_what_it_cannot_be():
    item = OrderedDict(id=7, name="Mug", price=None, currency="USD", url="/mug/",
                       variants=[{"id": 71, "attributes": {"size": "large"}, "variant_of": 7, "stock": None}])
    assert published(item, DETAIL, "https://shop.test") == {
        "id": "7", "name": "Mug", "url": "https://shop.test/mug/",
        "variants": [{"id": "71", "attributes": {"size": "large"}, "variant_of": "7"}]}
    variants = (variant for variant in [{"id": 71, "attributes": {}}])  # as a QuerySet's values() reads
    assert published({"id": 7, "name": "Mug", "variants": variants}, DETAIL, "")["variants"] == [
        {"id": "71", "attributes": {}}]
    item = namedtuple("Item", "id name")("cup", "Cup")  # the codec's to write, as an object
    assert published({"results": [item], "total": 1, "page": 1, "limit": 1}, SEARCH, "")["results"] == [item]
    with pytest.raises(NotTheDeclaredShape, match=r"variants\[0\] \(True\): id True is no string; no attributes\."):
        published({"id": "7", "name": "Mug", "variants": [{"id": True}]}, DETAIL, "https://shop.test", "detail")


def test_every_built_in_output_is_a_json_schema():
    """The built-in handlers register their outputs without register()'s check (register_checked):
    checked here instead, as register() checks a shop's."""
    outputs = [declared_output(name) for name in sorted(registered_names())]
    assert len([output for output in outputs if output]) >= 10
    for output in filter(None, outputs):
        Draft202012Validator.check_schema(output)
