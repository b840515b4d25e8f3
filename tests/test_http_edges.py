"""The agent API and the documents at the HTTP edge: HEAD and chunked bodies over real HTTP; unknown
methods, odd headers and digits, conditional requests, the namespace's root in process. Every
refusal is the envelope with its status, never Django's HTML page or a 500."""
import pytest
import requests
from django.test import Client

from agents_protocol.models import AgentSession, AuditEvent
from tests.api_client import API, IN_PROCESS_URL, SESSION_PATH, assert_error
from tests.factories import make_product

TIMEOUT = 10


@pytest.fixture
def mug(db):
    return make_product(public_id="mug", name="Speckled Mug", stock=5)


def test_head_answers_wherever_get_does_without_a_body(live_server, mug):
    for path in (f"{API}/search?q=mug", f"{API}/detail/mug", f"{API}/detail?id=mug"):
        got, head = (requests.request(method, live_server.url + path, timeout=TIMEOUT) for method in ("GET", "HEAD"))
        assert (got.status_code, head.status_code) == (200, 200), path
        assert head.content == b"" and head.headers["Content-Type"] == got.headers["Content-Type"]
        assert "X-RateLimit-Remaining" in head.headers  # counted like the GET


def test_a_method_no_view_has_gets_the_paths_own_404_or_405(http):
    assert_error(http.request("PROPFIND", f"{IN_PROCESS_URL}{API}/nope", timeout=TIMEOUT), 404, "not_found")
    refused = http.request("PROPFIND", f"{IN_PROCESS_URL}{API}/search", timeout=TIMEOUT)
    assert_error(refused, 405, "method_not_allowed")
    assert "POST" not in refused.headers["Allow"] and "GET" in refused.headers["Allow"]


def test_a_chunked_body_is_refused_411_and_runs_nothing(live_server):
    def chunks():
        yield b'{"agent_name": '
        yield b'"chunked-bot"}'

    refused = requests.post(f"{live_server.url}{SESSION_PATH}", data=chunks(), timeout=TIMEOUT,
                            headers={"Content-Type": "application/json"})
    assert refused.request.headers.get("Transfer-Encoding") == "chunked"
    assert_error(refused, 411, "length_required")
    assert not AgentSession.objects.exists() and not AuditEvent.objects.exists()


@pytest.mark.django_db
def test_a_content_length_of_other_digits_is_400_not_a_500():
    """"²" is a digit to str.isdigit() and not to int(). gunicorn refuses such a header itself, and
    requests writes its own, so this one goes in process, as a server that passed it on would."""
    answer = Client().post(SESSION_PATH, b"{}", content_type="application/json", CONTENT_LENGTH="\u00b2")
    assert_error(answer, 400, "invalid_request")


@pytest.mark.parametrize("limit", ["\uff15", "\u0665"])  # a fullwidth and an Arabic-Indic 5
def test_an_integer_is_written_in_ascii_digits(http, limit):
    refused = http.get(f"{IN_PROCESS_URL}{API}/search", params={"q": "mug", "limit": limit}, timeout=TIMEOUT)
    assert_error(refused, 400, "invalid_params")


def test_two_idempotency_keys_are_not_taken_for_one(http, mug):
    refused = http.post(f"{IN_PROCESS_URL}{API}/contact", timeout=TIMEOUT, headers={"Idempotency-Key": "k1,k2"},
                        json={"name": "Ada", "email": "ada@example.com", "message": "Two keys?"})
    assert_error(refused, 400, "invalid_idempotency_key")


@pytest.mark.parametrize("path", ["/.well-known/agents.json", "/.well-known/agents/a2a", "/.well-known/agents/zzz",
                                  f"{API}/search?q=mug"])  # a found product's URL is built from the Host
def test_a_host_outside_allowed_hosts_is_the_envelopes_400(http, mug, path):
    answer = http.get(IN_PROCESS_URL + path, headers={"Host": "evil.example"}, timeout=TIMEOUT)
    assert_error(answer, 400, "invalid_request")


@pytest.mark.parametrize("path", ["/.well-known/agents", "/.well-known/agents/", "/.well-known/agents/zzz/x"])
def test_the_namespace_answers_json_even_where_nothing_is(http, path):
    assert_error(http.get(IN_PROCESS_URL + path, timeout=TIMEOUT), 404, "not_found")


def test_a_failed_if_match_is_the_envelopes_412(http):
    answer = http.get(f"{IN_PROCESS_URL}/.well-known/agents.json", headers={"If-Match": '"another"'},
                      timeout=TIMEOUT)
    assert_error(answer, 412, "precondition_failed")


@pytest.mark.django_db
def test_a_304_and_a_preflights_204_carry_no_content_length():
    client = Client()
    etag = client.get("/.well-known/agents.json").headers["ETag"]
    not_modified = client.get("/.well-known/agents.json", headers={"If-None-Match": etag})
    preflight = client.options(f"{API}/search", headers={"Origin": "https://agent.example",
                                                         "Access-Control-Request-Method": "GET"})
    assert (not_modified.status_code, preflight.status_code) == (304, 204)
    assert "Content-Length" not in not_modified.headers and "Content-Length" not in preflight.headers
