"""Every JSON answer says `Content-Type: application/json; charset=utf-8` (in process: the header and
bytes are the application's).

The protocol's interaction API: "`Content-Type`: Always `application/json; charset=utf-8`."
The agent API's successes and refusals, A2A's and PactSpec's answers (the one pipeline's
renderer), the published JSON documents and the 405 a document answers to a write.
"""
import pytest

from tests.api_client import API, IN_PROCESS_URL, SESSION_PATH
from tests.factories import make_agent_session, make_product
from tests.transports import TIMEOUT, TRANSPORTS

JSON_UTF8 = "application/json; charset=utf-8"
JSON_DOCUMENTS = ["/.well-known/agents.json", "/.well-known/pactspec.json", "/.well-known/agent-card.json",
                  "/.well-known/agents/openapi.json"]


@pytest.fixture
def shop(http):
    """The site in process, with a product; returns `http` to reach it."""
    make_product(public_id="mug", stock=5)
    return http


@pytest.fixture(params=list(TRANSPORTS))
def transport(request, shop):
    return TRANSPORTS[request.param](shop.django_client)


def test_a_success_and_refusals_of_every_transport_are_json_in_utf_8(transport):
    """The agent API, PactSpec (per skill and through the dispatcher), A2A and MCP: a success, a
    401 (no session), a 400 (invalid parameters) and a 404 (unknown item). MCP calls are made in a
    session."""
    token = None if transport.sessionless else make_agent_session().raw_token
    outcomes = {
        "success": transport.call("search", {"q": "mug"}, token=token),
        "no session": transport.call("cart.view"),
        "invalid parameters": transport.call("search", {"q": "mug", "limit": "many"}, token=token),
        "unknown item": transport.call("detail", {"id": "no-such-item"}, token=token),
    }
    assert outcomes["success"].ok and not any(o.ok for name, o in outcomes.items() if name != "success")
    assert [o.code for o in outcomes.values()] == [None, "session_required", "invalid_params", "unknown_item"]
    for name, outcome in outcomes.items():
        assert outcome.headers["Content-Type"] == JSON_UTF8, (name, outcome.headers)


@pytest.mark.parametrize("method, path, status", [
    ("GET", f"{API}/search?q=mug", 200),
    ("POST", SESSION_PATH, 201),
    ("GET", f"{API}/teleport", 404),
    ("DELETE", f"{API}/search", 405),
    ("POST", f"{API}/cart/add", 401),
])
def test_agent_api_answers_are_json_in_utf_8(shop, method, path, status):
    response = shop.request(method, IN_PROCESS_URL + path, timeout=TIMEOUT)
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"] == JSON_UTF8
    assert response.json()["ok"] is (status < 400)


def test_a_non_ascii_answer_is_utf_8_on_the_wire(shop):
    make_product(public_id="bol", name="Bol à café", stock=3)
    response = shop.get(f"{IN_PROCESS_URL}{API}/detail/bol", timeout=TIMEOUT)
    assert response.headers["Content-Type"] == JSON_UTF8
    assert "Bol à café".encode() in response.content  # UTF-8 itself, not \\u escapes
    assert response.json()["data"]["name"] == "Bol à café"


@pytest.mark.parametrize("path", JSON_DOCUMENTS)
def test_the_json_documents_and_their_405_are_json_in_utf_8(shop, path):
    document = shop.get(IN_PROCESS_URL + path, timeout=TIMEOUT)
    assert document.status_code == 200
    assert document.headers["Content-Type"] == JSON_UTF8

    refused = shop.post(IN_PROCESS_URL + path, json={}, timeout=TIMEOUT)
    assert refused.status_code == 405 and refused.headers["Allow"] == "GET, HEAD, OPTIONS"
    assert refused.headers["Content-Type"] == JSON_UTF8
    assert refused.json()["code"] == "method_not_allowed"
