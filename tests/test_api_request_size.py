"""An over-long URL or header block on an agent path is the JSON envelope, 414 `uri_too_long` or
431 `headers_too_large`, not the front server's HTML page (issue 23, point 6).

Over real HTTP against gunicorn started with the shipped deploy/gunicorn.conf.py: its limits
sit above the app's (MAX_URL_BYTES, MAX_HEADER_BYTES), so a request past the app's limits
reaches Django and gets the envelope, a request exactly at them is served, and only a request
past gunicorn's own limits gets gunicorn's answer. That is the envelope too, written by the
worker class the config names (agents_protocol.contrib.gunicorn.workers), as is gunicorn's
answer to any request that is not HTTP/1.1. In process: the check comes before the
configuration is read, on every agent path and on no shop page; the limits are settings, and
what the documents state is what is enforced.
"""
import http.client
import json
import re
import runpy
import socket
from urllib.parse import urlsplit

import pytest
import requests
from django.test import RequestFactory
from django.utils.encoding import escape_uri_path
from gunicorn.config import Config
from gunicorn.http.message import MAX_REQUEST_LINE
from gunicorn.workers.gthread import ThreadWorker as GthreadWorker
from llms_txt import parse_llms_file

from agents_protocol.contrib.gunicorn.workers import SyncWorker, ThreadWorker
from agents_protocol.core.conf import AgentsProtocolSettings
from agents_protocol.http import middleware
from agents_protocol.http.request_size import header_bytes, url_bytes
from tests.api_client import API, assert_error, is_json
from tests.servers import ROOT, migrate, serve_site, site_env

SEARCH = f"{API}/search"
URL_LIMIT = AgentsProtocolSettings.MAX_URL_BYTES.default
HEADER_LIMIT = AgentsProtocolSettings.MAX_HEADER_BYTES.default
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"
GUNICORN_DEFAULT_REQUEST_LINE = 4094
GUNICORN_DEFAULT_FIELDS = 100
THREAD_WORKER = "agents_protocol.contrib.gunicorn.workers.ThreadWorker"
# Every agent path the middleware answers or passes on: the API, the documents, A2A, PactSpec,
# and any other path under /.well-known/.
AGENT_PATHS = [
    ("GET", SEARCH),
    ("GET", f"{API}/nowhere"),
    ("GET", "/.well-known/agents.json"),
    ("GET", "/.well-known/agents.txt"),
    ("GET", "/llms.txt"),
    ("GET", "/.well-known/agents/openapi.json"),
    ("GET", "/.well-known/agent-card.json"),
    ("GET", "/.well-known/pactspec.json"),
    ("POST", "/.well-known/agents/a2a"),
    ("POST", "/.well-known/agents/pactspec/search"),
    ("GET", "/.well-known/security.txt"),
]


def gunicorn_conf():
    """The settings deploy/gunicorn.conf.py sets, as gunicorn's own Config reads and validates them."""
    values = runpy.run_path(str(GUNICORN_CONF))
    config = Config()
    for name, value in values.items():
        if name in config.settings:
            config.set(name, value)
    return config


def search_target(total_bytes):
    """A search whose path and query string are exactly `total_bytes` long (q is all "a")."""
    prefix = f"{SEARCH}?q="
    return prefix + "a" * (total_bytes - len(prefix))


def block_bytes(headers):
    return sum(len(name) + len(": ") + len(value) + len("\r\n") for name, value in headers)


def raw_get(site, target, headers=()):
    """GET with exactly this request line and these header fields (plus Host and Connection):
    (status, Content-Type, body, the header fields sent)."""
    address = urlsplit(site.url)
    sent = [("Host", address.netloc), ("Connection", "close"), *headers]
    head = f"GET {target} HTTP/1.1\r\n" + "".join(f"{name}: {value}\r\n" for name, value in sent) + "\r\n"
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall(head.encode("latin-1"))
        response = http.client.HTTPResponse(sock, method="GET")
        response.begin()
        return response.status, response.getheader("Content-Type", ""), response.read(), sent


def padded_to(site_netloc, total):
    """Header fields (after Host and Connection) that make the block exactly `total` bytes."""
    base = block_bytes([("Host", site_netloc), ("Connection", "close")])
    filler = total - base - len("X-Padding: \r\n")
    return [("X-Padding", "p" * filler)]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    env = site_env(tmp_path_factory.mktemp("request-size"))
    migrate(env)
    served = serve_site(env, workers=1)  # gunicorn --config deploy/gunicorn.conf.py
    yield served
    served.stop()


def assert_envelope(response, status, code):
    body = assert_error(response, status, code)
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["Cache-Control"] == "no-store"
    assert re.fullmatch(r"[0-9a-f]{32}", response.headers["X-Request-ID"])  # as every API answer has one
    assert "<html" not in response.text.lower()
    return body


# The limits against each other


def test_the_app_limits_sit_below_the_limits_gunicorn_is_started_with():
    config = gunicorn_conf()
    # gunicorn's maximum request line, and a limit at all (0 would lift it).
    assert config.limit_request_line == MAX_REQUEST_LINE == 8190
    longest_method = max(len(method) for method in ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"))
    longest_line_the_app_accepts = longest_method + len(" ") + URL_LIMIT + len(" HTTP/1.1")
    assert longest_line_the_app_accepts < config.limit_request_line
    assert longest_line_the_app_accepts > GUNICORN_DEFAULT_REQUEST_LINE  # why the default had to go
    # Any field of a block the app accepts is at most the whole block.
    assert HEADER_LIMIT < config.limit_request_field_size
    assert config.limit_request_fields > GUNICORN_DEFAULT_FIELDS
    # What gunicorn may buffer of one request's header block stays a few MB.
    assert config.limit_request_fields * (config.limit_request_field_size + 2) < 8 * 1024 * 1024


def test_the_documents_state_the_limits_the_app_and_gunicorn_enforce():
    config = gunicorn_conf()
    api = (ROOT / "docs" / "api.md").read_text()
    assert f"at most {URL_LIMIT} bytes" in api and f"at most {HEADER_LIMIT} bytes" in api
    deploy = (ROOT / "docs" / "deploy.md").read_text()
    for setting in ("limit_request_line", "limit_request_field_size", "limit_request_fields"):
        assert f"`{setting} = {getattr(config, setting)}`" in deploy, setting
    assert "large_client_header_buffers" in deploy


@pytest.mark.django_db
def test_llms_txt_states_the_limits(client, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "MAX_URL_BYTES": 3000, "MAX_HEADER_BYTES": 6000}
    info = parse_llms_file(client.get("/llms.txt").content.decode()).info
    assert "path and query string at most 3000 bytes" in info and "414 `uri_too_long`" in info
    assert "header fields at most 6000 bytes in all" in info and "431 `headers_too_large`" in info
    assert "- 414: " in info and "- 431: " in info


# Over real HTTP, through gunicorn with deploy/gunicorn.conf.py


def test_a_search_of_5000_characters_is_a_414_envelope_not_gunicorns_page(site):
    target = f"{SEARCH}?q={'a' * 5000}"
    assert GUNICORN_DEFAULT_REQUEST_LINE < len(f"GET {target} HTTP/1.1") < MAX_REQUEST_LINE
    response = requests.get(site.url + target, headers={"Origin": "https://agent.example"}, timeout=30)
    body = assert_envelope(response, 414, "uri_too_long")
    assert f"{len(target)} bytes" in body["error"] and f"at most {URL_LIMIT}" in body["error"]
    assert int(response.headers["Content-Length"]) == len(response.content)


def test_a_search_exactly_at_the_limit_is_served_and_one_byte_more_is_414(site):
    at_limit = search_target(URL_LIMIT)
    assert len(at_limit) == URL_LIMIT
    served = requests.get(site.url + at_limit, timeout=30)
    assert "q" in assert_error(served, 400, "invalid_params")["fields"]  # q is over 200 characters: served
    assert_envelope(requests.get(site.url + search_target(URL_LIMIT + 1), timeout=30), 414, "uri_too_long")


@pytest.mark.parametrize("method, path", AGENT_PATHS)
def test_every_agent_path_answers_an_over_long_url_with_the_envelope(site, method, path):
    target = f"{path}?pad={'x' * 5000}"
    response = requests.request(method, site.url + target, json={} if method == "POST" else None, timeout=30)
    assert_envelope(response, 414, "uri_too_long")


def test_a_shop_page_is_left_to_the_front_server(site):
    response = requests.get(f"{site.url}/?pad={'x' * 5000}", timeout=30)
    assert response.status_code == 200 and not is_json(response)


def test_a_header_block_over_the_limit_is_a_431_envelope(site):
    netloc = urlsplit(site.url).netloc
    status, content_type, body, sent = raw_get(site, f"{SEARCH}?q=mug", padded_to(netloc, HEADER_LIMIT + 1))
    assert block_bytes(sent) == HEADER_LIMIT + 1
    assert (status, content_type) == (431, "application/json; charset=utf-8")
    assert b'"code":"headers_too_large"' in body and f"{HEADER_LIMIT + 1} bytes".encode() in body


def test_a_header_block_exactly_at_the_limit_is_served(site):
    netloc = urlsplit(site.url).netloc
    status, content_type, body, sent = raw_get(site, f"{SEARCH}?q=mug", padded_to(netloc, HEADER_LIMIT))
    assert block_bytes(sent) == HEADER_LIMIT
    assert (status, content_type.split(";")[0]) == (200, "application/json") and b'"ok":true' in body


@pytest.mark.parametrize("headers", [
    [(f"X-Padding-{n}", "p" * 3000) for n in range(3)],  # several fields, 9 KB in all
    [("X-Padding", "p" * 12000)],  # one field over the app's whole limit, under gunicorn's per field
    [(f"X-Padding-{n}", "p" * 40) for n in range(200)],  # more fields than gunicorn's default 100
], ids=["several-fields", "one-long-field", "many-fields"])
def test_header_blocks_past_the_app_limit_but_within_gunicorns_get_the_envelope(site, headers):
    response = requests.get(f"{site.url}{SEARCH}?q=mug", headers=dict(headers), timeout=30)
    assert_envelope(response, 431, "headers_too_large")


# Beyond gunicorn's own limits gunicorn answers itself, in the envelope too
# (agents_protocol.contrib.gunicorn.workers.SyncWorker, the worker class deploy/gunicorn.conf.py names)


def raw_request(site, head):
    """Send `head` as it is, byte for byte: (status, header fields, body) of the answer."""
    address = urlsplit(site.url)
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall(head)
        response = http.client.HTTPResponse(sock, method="GET")
        response.begin()
        return response.status, response.getheaders(), response.read()


def assert_servers_envelope(answer, status, code):
    """gunicorn's own answer: the envelope with `status` and `code`, on a connection it closes."""
    got_status, header_fields, body = answer
    headers = {name.lower(): value for name, value in header_fields}
    assert got_status == status, body
    assert headers["content-type"] == "application/json; charset=utf-8"
    assert headers["connection"] == "close"
    assert headers["access-control-allow-origin"] == "*"
    assert int(headers["content-length"]) == len(body)
    envelope = json.loads(body)
    assert envelope["ok"] is False and envelope["code"] == code, envelope
    assert envelope["error"].endswith(".") and "<" not in envelope["error"]
    return envelope


def test_a_request_line_past_gunicorns_limit_is_gunicorns_414_envelope(site):
    line_length = MAX_REQUEST_LINE + 1
    target = search_target(line_length - len("GET  HTTP/1.1"))
    assert len(f"GET {target} HTTP/1.1") == line_length
    head = f"GET {target} HTTP/1.1\r\nHost: {urlsplit(site.url).netloc}\r\n\r\n".encode()
    envelope = assert_servers_envelope(raw_request(site, head), 414, "uri_too_long")
    assert f"{line_length} > {MAX_REQUEST_LINE}" in envelope["error"]  # gunicorn's own figures


@pytest.mark.parametrize("headers", [
    [("X-Padding", "p" * 20000)],  # one field over limit_request_field_size
    [(f"X-Padding-{n}", "p") for n in range(300)],  # more fields than limit_request_fields
], ids=["field-too-long", "too-many-fields"])
def test_a_header_block_past_gunicorns_limits_is_gunicorns_431_envelope(site, headers):
    sent = [("Host", urlsplit(site.url).netloc), *headers]
    head = f"GET {SEARCH}?q=mug HTTP/1.1\r\n" + "".join(f"{name}: {value}\r\n" for name, value in sent) + "\r\n"
    assert_servers_envelope(raw_request(site, head.encode()), 431, "headers_too_large")


@pytest.mark.parametrize("head", [
    b"NOT HTTP AT ALL\r\n\r\n",
    b"GET /.well-known/agents.json HTTP/9.9\r\nHost: x\r\n\r\n",
    b"GET /.well-known/agents.json HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n",
    b"POST /.well-known/agents/api/cart/add HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n",
    b"GET /.well-known/agents.json HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\n\r\n",
], ids=["no-request-line", "unknown-version", "invalid-header-name", "invalid-content-length", "obsolete-folding"])
def test_a_request_gunicorn_cannot_read_is_a_400_envelope(site, head):
    assert_servers_envelope(raw_request(site, head), 400, "invalid_request")


def test_a_transfer_coding_gunicorn_does_not_take_is_a_501_envelope(site):
    head = (b"POST /.well-known/agents/api/cart/add HTTP/1.1\r\nHost: x\r\n"
            b"Transfer-Encoding: br, chunked\r\n\r\n0\r\n\r\n")  # br: a coding gunicorn does not know
    assert_servers_envelope(raw_request(site, head), 501, "invalid_request")
    with socket.create_connection((urlsplit(site.url).hostname, urlsplit(site.url).port), timeout=30) as sock:
        sock.sendall(head)
        assert sock.recv(64).startswith(b"HTTP/1.1 501 Not Implemented\r\n")  # gunicorn's own says "Bad Request"


@pytest.fixture(scope="module")
def threaded_site(tmp_path_factory):
    """The shipped config with gunicorn's gthread worker: GUNICORN_CMD_ARGS wins over the file."""
    threaded = f"--threads 2 --worker-class {THREAD_WORKER}"
    env = site_env(tmp_path_factory.mktemp("request-size-threads"), GUNICORN_CMD_ARGS=threaded)
    migrate(env)
    served = serve_site(env, workers=1)
    yield served
    served.stop()


def test_the_threaded_worker_writes_gunicorns_refusals_in_the_envelope_too(threaded_site):
    assert_servers_envelope(raw_request(threaded_site, b"NOT HTTP AT ALL\r\n\r\n"), 400, "invalid_request")
    target = search_target(MAX_REQUEST_LINE)
    head = f"GET {target} HTTP/1.1\r\nHost: {urlsplit(threaded_site.url).netloc}\r\n\r\n".encode()
    assert_servers_envelope(raw_request(threaded_site, head), 414, "uri_too_long")
    assert requests.get(f"{threaded_site.url}{SEARCH}", params={"q": "mug"}, timeout=30).status_code == 200


def test_with_threads_gunicorn_swaps_a_sync_worker_for_its_own_so_the_threaded_one_is_named():
    config = gunicorn_conf()
    assert config.worker_class is SyncWorker  # the shipped config
    config.set("threads", 2)
    assert config.worker_class is GthreadWorker  # gunicorn's swap: its HTML pages again
    config.set("worker_class", THREAD_WORKER)
    assert config.worker_class is ThreadWorker


def test_the_site_still_answers_after_gunicorns_refusals(site):
    raw_request(site, b"NOT HTTP AT ALL\r\n\r\n")
    assert requests.get(f"{site.url}{SEARCH}", params={"q": "mug"}, timeout=30).status_code == 200


# In process: where the check sits, what it counts


@pytest.mark.django_db
def test_the_check_runs_before_the_configuration_is_read(client, monkeypatch, django_assert_num_queries):
    def no_configuration():
        raise AssertionError("the configuration was read")

    monkeypatch.setattr(middleware, "current_config", no_configuration)
    with django_assert_num_queries(0):
        too_long = client.get(search_target(URL_LIMIT + 1))
        too_large = client.get(f"{SEARCH}?q=mug", headers={"X-Padding": "p" * HEADER_LIMIT})
    assert (too_long.status_code, too_long.json()["code"]) == (414, "uri_too_long")
    assert (too_large.status_code, too_large.json()["code"]) == (431, "headers_too_large")
    assert too_long["Content-Type"] == too_large["Content-Type"] == "application/json; charset=utf-8"


@pytest.mark.django_db
def test_the_limits_are_settings(client, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "MAX_URL_BYTES": 100, "MAX_HEADER_BYTES": 1000}
    response = client.get(search_target(101))
    assert (response.status_code, response.json()["code"]) == (414, "uri_too_long")
    assert "at most 100." in response.json()["error"]
    assert client.get(search_target(100)).status_code == 200  # a search for 67 characters: served
    response = client.get(f"{SEARCH}?q=mug", headers={"X-Padding": "p" * 1000})
    assert (response.status_code, response.json()["code"]) == (431, "headers_too_large")


def test_what_is_counted():
    request = RequestFactory().get("/.well-known/agents/api/detail/caf%C3%A9?q=a%20b", headers={"X-Agent": "me"})
    assert url_bytes(request) == len("/.well-known/agents/api/detail/caf%C3%A9?q=a%20b")
    meta = request.META
    expected = sum(len(key) - len("HTTP_") + 2 + len(value) + 2 for key, value in meta.items()
                   if key.startswith("HTTP_"))
    assert header_bytes(request) == expected
    request.META["CONTENT_TYPE"], request.META["CONTENT_LENGTH"] = "application/json", "2"
    assert header_bytes(request) == expected + len("Content-Type: application/json\r\n") + len("Content-Length: 2\r\n")


@pytest.mark.parametrize("path", [
    "/.well-known/agents/api/detail/p000042",
    "/.well-known/agents/api/detail/a-b_c.d~e!f$g&h'i(j)k*l+m,n;o=p:q@r",
    "/.well-known/agents/api/detail/café",
    "/.well-known/agents/api/detail/100%",
    "/.well-known/agents/api/detail/a b\"<>[]{}|\\^`",
])
def test_a_path_is_counted_as_its_percent_encoding_whichever_characters_it_holds(path):
    """A path of characters written as they are is measured as it stands; any other, escaped."""
    request = RequestFactory().get("/")
    request.path = path
    assert url_bytes(request) == len(escape_uri_path(path).encode())
