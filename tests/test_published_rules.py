"""What the documents publish is what the server enforces, in process (Django's test client).

Each rule is read from the published OpenAPI document and tried on the server: a value the
document refuses is refused, one it accepts is accepted: the quantity's maximum, NUL, null, an
enormous number, text with spaces around it.
"""
import json

import pytest
from jsonschema import Draft202012Validator, FormatChecker

from tests.factories import make_product

pytestmark = pytest.mark.django_db

API = "/.well-known/agents/api"
JSON = "application/json"


def openapi(client):
    return client.get("/.well-known/agents/openapi.json").json()


def operation(document, path, method):
    return document["paths"][path][method]


def body_property(document, path, method, name):
    request = operation(document, path, method)["requestBody"]["content"][JSON]["schema"]
    return request["properties"][name]


def query_parameter(document, path, name):
    return next(p["schema"] for p in operation(document, path, "get")["parameters"] if p["name"] == name)


def accepts(schema, value):
    return Draft202012Validator(schema, format_checker=FormatChecker()).is_valid(value)


def session(client, **agent):
    answer = client.post(f"{API}/session", data=json.dumps(agent), content_type=JSON)
    assert answer.status_code == 201, answer.content
    return answer.json()["data"]["session_token"]


def call(client, method, path, params=None, token=None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    if method == "get":
        return client.get(path, params or {}, **headers)
    return getattr(client, method)(path, data=json.dumps(params or {}), content_type=JSON, **headers)


def refusal(answer, status=400, code="invalid_params"):
    body = answer.json()
    assert (answer.status_code, body["code"]) == (status, code), body
    return body


# 7. The quantity's maximum is the shop's own


def test_the_quantity_maximum_published_is_the_carts_own_and_enforced_as_published(client, settings):
    settings.CART_MAX_QUANTITY = 20
    mug = make_product(stock=50)
    document = openapi(client)
    assert body_property(document, f"{API}/cart/add", "post", "quantity")["maximum"] == 20
    assert body_property(document, f"{API}/cart/update", "put", "quantity")["maximum"] == 20

    token = session(client)
    too_many = refusal(call(client, "post", f"{API}/cart/add", {"item_id": mug.public_id, "quantity": 21}, token))
    assert too_many["fields"] == {"quantity": "Must be an integer from 1 to 20."}
    assert call(client, "post", f"{API}/cart/add", {"item_id": mug.public_id, "quantity": 20}, token).status_code == 200

    settings.CART_MAX_QUANTITY = 5  # the documents follow the shop's setting
    assert body_property(openapi(client), f"{API}/cart/add", "post", "quantity")["maximum"] == 5


# 8. NUL


@pytest.mark.parametrize("path, method, name", [
    (f"{API}/search", "get", "q"),
    (f"{API}/contact", "post", "name"),
    (f"{API}/order/status", "get", "order_id"),
    (f"{API}/session", "post", "agent_name"),
])
def test_every_string_parameter_publishes_that_nul_is_refused(client, path, method, name):
    document = openapi(client)
    schema = query_parameter(document, path, name) if method == "get" else body_property(document, path, method, name)
    assert not accepts(schema, "mug\x00")
    assert accepts(schema, "mug")


# 9. null is no value of a declared type


@pytest.mark.parametrize("agent", [{"agent_name": None}, {"purpose": None}, {"agent_version": None}])
def test_a_null_session_field_is_refused_as_its_schema_says(client, agent):
    [(name, _)] = agent.items()
    schema = body_property(openapi(client), f"{API}/session", "post", name)
    assert not accepts(schema, None)
    answer = client.post(f"{API}/session", data=json.dumps(agent), content_type=JSON)
    assert refusal(answer)["fields"] == {name: "Must be text."}


@pytest.mark.parametrize("params", [{"quantity": None}, {"item_id": None}])
def test_a_null_cart_parameter_is_refused_not_taken_for_its_default(client, params):
    mug = make_product(stock=5)
    token = session(client)
    answer = call(client, "post", f"{API}/cart/add", {"item_id": mug.public_id, **params}, token)
    assert list(refusal(answer)["fields"]) == list(params)
    assert call(client, "get", f"{API}/cart/view", token=token).json()["data"]["items"] == []


# 10. The range an enormous number is told


def test_an_enormous_quantity_is_told_the_declared_range(client):
    token = session(client)
    answer = call(client, "post", f"{API}/cart/add", {"item_id": "mug", "quantity": 10**20}, token)
    assert refusal(answer)["fields"] == {"quantity": "Must be an integer from 1 to 20."}


# 11. maxLength and format apply to the text as sent


def test_text_over_its_published_max_length_is_refused_even_with_the_spaces_trimming_removes(client):
    schema = query_parameter(openapi(client), f"{API}/search", "q")
    padded = "m" * 199 + "   "
    assert not accepts(schema, padded)
    assert refusal(client.get(f"{API}/search", {"q": padded}))["fields"] == {
        "q": "Must be text of 1 to 200 characters."}
    assert accepts(schema, "  mug  ") and client.get(f"{API}/search", {"q": "  mug  "}).status_code == 200


def test_an_email_with_spaces_around_it_is_refused_as_the_email_format_says(client, mailoutbox):
    params = {"name": "Ada", "email": " ada@example.com", "message": "Hello"}
    assert refusal(call(client, "post", f"{API}/contact", params))["fields"] == {
        "email": "Must be a valid email address."}
    assert call(client, "post", f"{API}/contact", {**params, "email": "ada@example.com"}).status_code == 200
