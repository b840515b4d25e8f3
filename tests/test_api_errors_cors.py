"""CORS on the API and the discovery documents; the error envelope, request ids and hostile input.

In process, but for what only a socket shows: a Content-Length that lies (raw_request)."""
import http.client
import logging
import os
import random
import re
from decimal import Decimal
from urllib.parse import urlsplit

import pytest

from agents_protocol.core.capabilities import register, unregister
from agents_protocol.http.request_ids import new_request_id
from agents_protocol.models import AgentSession, Capability
from tests.api_client import (
    API,
    IN_PROCESS_URL,
    SESSION_PATH,
    AgentClient,
    assert_error,
    is_json,
    ok_data,
)

ALLOWED_REQUEST_HEADERS = {"authorization", "x-session-token", "x-agent-session", "content-type", "idempotency-key",
                           "user-agent",  # recommended by the interaction API, not CORS-safelisted
                           "a2a-version", "mcp-session-id", "mcp-protocol-version"}  # the transports' own
EXPOSED_RESPONSE_HEADERS = {"retry-after", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "link",
                            "mcp-session-id"}


def header_set(response, name):
    return {value.strip().lower() for value in response.headers[name].split(",")}


def preflight(http, url, method):
    return http.options(url, headers={
        "Origin": "https://agent.example",
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
    }, timeout=10)


@pytest.fixture
def agent(site_client):
    return AgentClient(django_client=site_client)


# CORS


@pytest.mark.parametrize("method, path, status", [
    ("GET", f"{API}/search?q=mug", 200),
    ("GET", f"{API}/cart/view", 401),
    ("GET", f"{API}/nowhere", 404),
    ("POST", f"{API}/search", 405),
    ("POST", SESSION_PATH, 201),
])
def test_every_api_answer_allows_any_origin_and_exposes_the_limit_headers(agent, method, path, status):
    response = agent.request(method, path, headers={"Origin": "https://agent.example"})
    assert response.status_code == status
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert EXPOSED_RESPONSE_HEADERS <= header_set(response, "Access-Control-Expose-Headers")


@pytest.mark.parametrize("path, method, allowed", [
    (f"{API}/search", "GET", {"GET", "OPTIONS"}),
    (f"{API}/cart/add", "POST", {"POST", "OPTIONS"}),
    (SESSION_PATH, "DELETE", {"POST", "DELETE", "OPTIONS"}),
    (f"{API}/detail/some-mug", "GET", {"GET", "OPTIONS"}),
    (f"{API}/detail?id=some-mug", "GET", {"GET", "OPTIONS"}),  # the short form of detail/:id
])
def test_api_preflight_is_204_with_the_allowed_methods_and_headers(http, path, method, allowed):
    response = preflight(http, IN_PROCESS_URL + path, method)
    assert response.status_code == 204 and response.content == b""
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert {m.strip() for m in response.headers["Access-Control-Allow-Methods"].split(",")} == allowed
    assert ALLOWED_REQUEST_HEADERS <= header_set(response, "Access-Control-Allow-Headers")
    assert int(response.headers["Access-Control-Max-Age"]) > 0


@pytest.mark.parametrize("path", ["/.well-known/agents/a2a", "/mcp"])
def test_the_a2a_and_mcp_preflights_allow_the_headers_their_clients_must_send(http, path):
    response = preflight(http, IN_PROCESS_URL + path, "POST")
    assert response.status_code == 204 and response.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in {m.strip() for m in response.headers["Access-Control-Allow-Methods"].split(",")}
    assert ALLOWED_REQUEST_HEADERS <= header_set(response, "Access-Control-Allow-Headers")


@pytest.mark.parametrize("name", ["agents.json", "agents.txt"])
def test_discovery_documents_answer_preflight_with_204_and_allow_any_origin(http, name):
    url = f"{IN_PROCESS_URL}/.well-known/{name}"
    response = preflight(http, url, "GET")
    assert response.status_code == 204
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "GET" in response.headers["Access-Control-Allow-Methods"]
    assert http.get(url, timeout=10).headers["Access-Control-Allow-Origin"] == "*"


# The envelope, request ids, no tracebacks


def explode(call):
    raise RuntimeError("database password is hunter2")


@pytest.fixture
def broken_capability(db):
    """Route a `broken` capability to the given handler; returns its path."""
    def install(handler):
        register("broken", handler)
        Capability.objects.create(name="broken", endpoint=f"{API}/broken", method="POST", position=40)
        return f"{API}/broken"

    yield install
    unregister("broken")


def test_an_unexpected_exception_is_a_500_envelope_with_a_logged_request_id(agent, broken_capability, caplog):
    path = broken_capability(explode)
    with caplog.at_level(logging.ERROR, logger="agents_protocol.api"):
        response = agent.post(path, {"anything": 1})

    body = assert_error(response, 500, "internal_error")
    request_id = response.headers["X-Request-ID"]
    assert len(request_id) >= 16 and request_id in body["error"]
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    for leak in ("Traceback", "RuntimeError", "hunter2", "explode(", ".py"):
        assert leak not in response.text
    (record,) = [r for r in caplog.records if r.name == "agents_protocol.api"]
    assert request_id in record.getMessage()
    assert record.exc_info[0] is RuntimeError


@pytest.mark.parametrize("result", [{"pot": object()}, {"ratio": float("nan")}, {"total": Decimal("Infinity")}],
                         ids=["unknown-type", "nan", "infinite-decimal"])
def test_a_handler_result_json_cannot_carry_is_a_500_envelope(agent, broken_capability, caplog, result):
    path = broken_capability(lambda call: result)
    with caplog.at_level(logging.ERROR, logger="agents_protocol.api"):
        response = agent.post(path)
    assert_error(response, 500, "internal_error")
    assert response.headers["X-Request-ID"] in caplog.text


def test_every_answer_carries_its_own_request_id_and_is_never_cached(agent):
    first, second = agent.get(f"{API}/search", {"q": "mug"}), agent.get(f"{API}/nowhere")
    assert first.headers["X-Request-ID"] and second.headers["X-Request-ID"]
    assert first.headers["X-Request-ID"] != second.headers["X-Request-ID"]
    assert first.headers["Cache-Control"] == second.headers["Cache-Control"] == "no-store"


def test_request_ids_repeat_neither_when_other_code_seeds_random_nor_in_a_forked_child():
    random.seed(7)
    first = new_request_id()
    random.seed(7)
    assert new_request_id() != first  # their generator is the module's own
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(writer, new_request_id().encode())
        os._exit(0)
    os.close(writer)
    os.waitpid(pid, 0)
    in_child = os.read(reader, 64).decode()
    os.close(reader)
    assert re.fullmatch(r"[0-9a-f]{32}", in_child) and in_child != new_request_id()  # reseeded in the child


def test_errors_are_json_whatever_the_agent_accepts(agent):
    response = agent.get(f"{API}/nowhere", headers={"Accept": "text/html"})
    assert_error(response, 404, "not_found")
    assert "<html" not in response.text.lower()


# Hostile input


TRAVERSAL_LIKE_IDS = ["..%2F..", "%00", "..%00", "%2e%2e", "..", "%252e%252e%252f", "..;", "%ff%fe", "a" * 300]


@pytest.mark.parametrize("raw_id", TRAVERSAL_LIKE_IDS)
def test_path_traversal_like_ids_are_404_or_400_envelopes_never_500(agent, raw_id):
    response = agent.get(f"{API}/detail/{raw_id}")
    assert response.status_code in (400, 404), response.text
    assert is_json(response) and response.json()["ok"] is False


def test_a_nul_in_a_search_query_is_400(agent):
    assert_error(agent.get(f"{API}/search?q=mug%00"), 400, "invalid_params")


def test_an_enormous_quantity_is_400(agent):
    agent.start_session()
    response = agent.post(f"{API}/cart/add", {"item_id": "any", "quantity": 10**30})
    assert assert_error(response, 400, "invalid_params")["fields"].keys() == {"quantity"}


def raw_request(base_url, method, path, headers, body=b""):
    """Send exactly these headers (requests would fix a lying Content-Length)."""
    address = urlsplit(base_url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    connection.putrequest(method, path)
    for name, value in headers.items():
        connection.putheader(name, value)
    connection.endheaders(body)
    response = connection.getresponse()
    return response.status, response.read()


def test_a_declared_content_length_over_the_limit_is_413_before_reading(live_server):
    status, body = raw_request(live_server.url, "POST", f"{API}/contact",
                               {"Content-Type": "application/json", "Content-Length": str(10**20)})
    assert status == 413 and b'"payload_too_large"' in body


def test_a_content_length_that_is_not_a_number_is_400(live_server):
    status, body = raw_request(live_server.url, "POST", f"{API}/contact",
                               {"Content-Type": "application/json", "Content-Length": "lots"})
    assert status == 400 and b'"invalid_request"' in body


def test_a_host_header_outside_allowed_hosts_is_400_not_500(http, caplog):
    response = http.get(f"{IN_PROCESS_URL}{API}/search?q=mug", headers={"Host": "evil.example"}, timeout=10)
    assert "evil.example" not in assert_error(response, 400, "invalid_request")["error"]
    assert [r.name for r in caplog.records if r.levelno >= logging.ERROR] == ["django.security.DisallowedHost"]


@pytest.mark.parametrize("path", [f"{API}/search?q=mug", "/.well-known/agents.json", "/llms.txt", "/mcp"])
def test_a_host_whose_port_no_connection_has_is_400(http, path):
    """Django takes any run of digits as a port: every URL written and every cache keyed by origin would carry it."""
    host = urlsplit(IN_PROCESS_URL).hostname
    for port in ("65536", "0" * 2000):
        if path == "/mcp":  # a JSON-RPC error, as that transport answers
            answer = http.post(f"{IN_PROCESS_URL}{path}", json={}, headers={"Host": f"{host}:{port}"}, timeout=10)
            assert answer.status_code == 400 and answer.json()["error"]["data"]["code"] == "invalid_request"
        else:
            assert_error(http.get(f"{IN_PROCESS_URL}{path}", headers={"Host": f"{host}:{port}"}, timeout=10),
                         400, "invalid_request")
    assert http.get(f"{IN_PROCESS_URL}{API}/search?q=mug", headers={"Host": f"{host}:65535"},
                    timeout=10).status_code == 200


def test_a_session_asked_for_under_a_foreign_host_is_refused_before_it_exists(http):
    """Made and then refused, it would count against the address's max_sessions with no token to end it."""
    for _ in range(6):
        refused = http.post(f"{IN_PROCESS_URL}{SESSION_PATH}", json={}, headers={"Host": "evil.example"},
                            timeout=10)
        assert_error(refused, 400, "invalid_request")
    assert not AgentSession.objects.exists()
    assert http.post(f"{IN_PROCESS_URL}{SESSION_PATH}", json={}, timeout=10).status_code == 201


def test_more_query_parameters_than_django_parses_is_400_not_500(agent):
    # 1001 short ones: 4,040 bytes, under MAX_URL_BYTES (4096), which answers 414 before Django parses any.
    assert_error(agent.get(f"{API}/search?q=mug" + "&p=1" * 1001), 400, "invalid_request")


def test_a_session_token_in_the_query_string_is_not_accepted(agent):
    token = agent.start_session()["session_token"]
    anonymous = AgentClient(django_client=agent.django_client)
    assert_error(anonymous.get(f"{API}/cart/view?session_token={token}"), 401, "session_required")
    assert ok_data(agent.get(f"{API}/cart/view"))["items"] == []
