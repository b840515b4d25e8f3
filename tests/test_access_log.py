"""gunicorn's access log through acme.log_redaction.GunicornLogger: for gunicorn's default format the
logger fills in only the atoms that format prints; its line must be, byte for byte, the line gunicorn's
general path writes with every atom redacted (the logger's behaviour before that shortcut), and the
shipped deploy/gunicorn.conf.py must still write one redacted line per request."""
import base64
import http.client
import logging
import logging.handlers
import re
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from gunicorn import glogging
from gunicorn.config import Config
from gunicorn.http import wsgi
from gunicorn.http.parser import RequestParser

from acme import log_redaction
from acme.log_redaction import GunicornLogger
from tests.servers import ROOT, free_port

CHECKOUT_TOKEN = "q9Xv2LmN4pR7sT1uW3yZ5aB8cD0eF6gH"
INSPECTOR_SECRET = "s3cr3t-Insp3ct0r-Abc123"
FIXED_NOW = "[25/Nov/2026:06:02:06 +0000]"
SENT_MISSING = object()


def basic_auth(user):
    return b"Authorization: Basic " + base64.b64encode(user.encode() + b":password")


def head(request_line, *headers):
    return b"\r\n".join([request_line.encode(), b"Host: shop.example", *headers, b"", b""])


PARITY_CASES = [
    pytest.param(head("GET / HTTP/1.1", b"User-Agent: curl/8.5.0", b"Accept: */*"), "200 OK", 1200, id="plain GET"),
    pytest.param(head("GET /search?q=vase&page=2 HTTP/1.1", b"User-Agent: curl/8.5.0"), "200 OK", 1200,
                 id="query string"),
    pytest.param(head('GET /search?q="celadon"\\mug HTTP/1.1'), "200 OK", 80, id="quote and backslash in the target"),
    pytest.param(head("HEAD /products/mug-celadon/ HTTP/1.1"), "200 OK", 0, id="HEAD"),
    pytest.param(head("GET /healthz HTTP/1.0"), "200 OK", 2, id="HTTP/1.0"),
    pytest.param(head(f"GET /checkout/{CHECKOUT_TOKEN}/ HTTP/1.1"), "200 OK", 5120, id="checkout link"),
    pytest.param(head(f"POST /checkout/{CHECKOUT_TOKEN}/ HTTP/1.1", b"Content-Length: 0"), "403 Forbidden", 312,
                 id="checkout link refused"),
    pytest.param(head("GET /static/site.css HTTP/1.1", f"Referer: https://shop.example/checkout/{CHECKOUT_TOKEN}/"
                      .encode()), "200 OK", 900, id="checkout link in the referer"),
    pytest.param(head(f"GET /.well-known/agents/inspect/{INSPECTOR_SECRET}/state?since=3 HTTP/1.1"), "200 OK", 64,
                 id="inspector"),
    pytest.param(head("GET /static/inspector.js HTTP/1.1",
                      f'Referer: https://shop.example/.well-known/agents/inspect/{INSPECTOR_SECRET}"x'.encode()),
                 "200 OK", 64, id="inspector secret then a quote in the referer"),
    pytest.param(head("GET / HTTP/1.1", b'User-Agent: Agent "quoted" \\back\\slash\\" end'), "200 OK", 10,
                 id="quotes and backslashes in the user agent"),
    pytest.param(head("GET / HTTP/1.1", "User-Agent: Céramique-Bot/1.0 ✓".encode()), "200 OK", 10,
                 id="non-ASCII user agent"),
    pytest.param(head("GET / HTTP/1.1", b"User-Agent: tab\there"), "200 OK", 10, id="tab in the user agent"),
    pytest.param(head("GET /about/ HTTP/1.1"), "200 OK", 10, id="no referer nor user agent"),
    pytest.param(head("GET /admin/ HTTP/1.1", basic_auth("ada")), "302 Found", 0, id="basic auth user"),
    pytest.param(head("GET /admin/ HTTP/1.1", basic_auth('a"d\\a')), "302 Found", 0, id="basic auth user, quoted"),
    pytest.param(head("GET /admin/ HTTP/1.1", b"Authorization: Basic !!not-base64"), "401 Unauthorized", 0,
                 id="basic auth unreadable"),
    pytest.param(head("GET /api/cart/view HTTP/1.1", b"Authorization: Bearer abc"), "401 Unauthorized", 0,
                 id="bearer token"),
    pytest.param(head("GET /missing HTTP/1.1"), "404 Not Found", None, id="sent is None"),
    pytest.param(head("GET /missing HTTP/1.1"), "404 Not Found", SENT_MISSING, id="response without sent"),
    pytest.param(head("GET /missing HTTP/1.1"), 404, 7, id="status as a number"),
]


@pytest.fixture
def access_logger(tmp_path, monkeypatch):
    """A GunicornLogger writing its access log to a file, as gunicorn sets it up, with a fixed clock."""
    cfg = Config()
    cfg.set("accesslog", str(tmp_path / "access.log"))
    logger = GunicornLogger(cfg)
    monkeypatch.setattr(logger, "now", lambda: FIXED_NOW)
    yield logger
    remove_gunicorn_handlers(logger)


def remove_gunicorn_handlers(logger):
    for log in (logger.access_log, logger.error_log):
        for handler in list(log.handlers):
            log.removeHandler(handler)
            handler.close()
        log.filters.clear()


def served(raw_request, status, sent, client=("203.0.113.9", 51234)):
    """gunicorn's own request, environ and response for raw_request, answered with status and sent."""
    cfg = Config()
    request = next(RequestParser(cfg, iter([raw_request]), client))
    response, environ = wsgi.create(request, None, client, ("127.0.0.1", 8000), cfg)
    response.status = status
    if sent is SENT_MISSING:
        del response.sent
    else:
        response.sent = sent
    return request, response, environ


def general_then_default_line(logger, monkeypatch, request, response, environ):
    """The access log's two lines: gunicorn's general path (with the logger's redacting atoms()), then
    the logger's own access(), which must not build the atoms."""
    request_time = timedelta(microseconds=1234)
    glogging.Logger.access(logger, response, request, environ, request_time)
    monkeypatch.setattr(logger, "atoms", lambda *args: pytest.fail("took gunicorn's general path"))
    logger.access(response, request, environ, request_time)
    return Path(logger.cfg.accesslog).read_bytes().split(b"\n")[:2]


@pytest.mark.parametrize(("raw_request", "status", "sent"), PARITY_CASES)
def test_the_default_line_is_the_general_paths_line(access_logger, monkeypatch, raw_request, status, sent):
    general, default = general_then_default_line(access_logger, monkeypatch, *served(raw_request, status, sent))
    assert default == general
    assert CHECKOUT_TOKEN.encode() not in default and INSPECTOR_SECRET.encode() not in default


def test_what_the_lines_hold(access_logger, monkeypatch):
    """The parity above could hold with both paths wrong: spell one line out."""
    raw_request = head(f"GET /checkout/{CHECKOUT_TOKEN}/?step=2 HTTP/1.1", basic_auth('a"da'),
                       f'Referer: https://shop.example/.well-known/agents/inspect/{INSPECTOR_SECRET}"x'.encode(),
                       'User-Agent: Bot "x" \\ é'.encode())
    _, default = general_then_default_line(access_logger, monkeypatch, *served(raw_request, "200 OK", 5120))
    assert default.decode() == (
        f'203.0.113.9 - a\\"da {FIXED_NOW} "GET /checkout/[redacted]/?step=2 HTTP/1.1" 200 5120 '
        '"https://shop.example/.well-known/agents/inspect/[redacted]\\"x" "Bot \\"x\\" \\ Ã©"'
    )


def test_a_unix_socket_peer_has_an_empty_address(access_logger, monkeypatch):
    general, default = general_then_default_line(
        access_logger, monkeypatch, *served(head("GET / HTTP/1.1"), "200 OK", 2, client="")
    )
    assert default == general and default.startswith(b" - - [")


def test_gunicorns_own_handler_is_written_without_a_log_record(access_logger, monkeypatch):
    request, response, environ = served(head("GET / HTTP/1.1"), "200 OK", 2)
    log = access_logger.access_log
    # Only gunicorn's own handler (an earlier test's log capture may have left pytest's on this logger).
    monkeypatch.setattr(log, "handlers", [handler for handler in log.handlers if getattr(handler, "_gunicorn", False)])
    monkeypatch.setattr(access_logger.access_log, "makeRecord", lambda *args: pytest.fail("made a LogRecord"))
    for _ in range(2):
        access_logger.access(response, request, environ, timedelta(microseconds=1234))
    lines = Path(access_logger.cfg.accesslog).read_bytes().split(b"\n")
    assert len(lines) == 3 and lines[0] == lines[1] and lines[2] == b""  # each line written whole, and flushed


@pytest.mark.parametrize("change", ["a filter on the handler", "a filter on the log", "another formatter",
                                    "another handler class", "records propagated"])
def test_any_other_handling_gets_log_records(access_logger, monkeypatch, change):
    log = access_logger.access_log
    monkeypatch.setattr(log, "handlers", [handler for handler in log.handlers if getattr(handler, "_gunicorn", False)])
    assert log_redaction.plain_handlers(log) is not None  # gunicorn's own, before the change
    handler = log.handlers[0]
    dropping = logging.Filter("nothing.is.called.this")
    if change == "a filter on the handler":
        handler.addFilter(dropping)
    elif change == "a filter on the log":
        log.addFilter(dropping)
    elif change == "another formatter":
        handler.setFormatter(logging.Formatter("access: %(message)s"))
    elif change == "another handler class":
        log.removeHandler(handler)
        handler.close()
        log.addHandler(logging.handlers.WatchedFileHandler(access_logger.cfg.accesslog))
    else:
        log.propagate = True
    request, response, environ = served(head("GET / HTTP/1.1"), "200 OK", 2)
    try:
        assert log_redaction.plain_handlers(log) is None
        access_logger.access(response, request, environ, timedelta(microseconds=1234))
    finally:
        log.propagate = False
    written = Path(access_logger.cfg.accesslog).read_text()
    if "filter" in change:
        assert written == ""
    elif change == "another formatter":
        assert written.startswith("access: 203.0.113.9 - - ")
    else:
        assert written.startswith("203.0.113.9 - - ") and written.endswith("\n")


def test_a_handler_given_after_setup_gets_the_line(access_logger, monkeypatch, tmp_path):
    """Django's LOGGING (dictConfig) may give gunicorn's access logger handlers of its own after
    gunicorn set it up: the line goes to the logger's handlers as they are."""
    log = access_logger.access_log
    own = logging.FileHandler(tmp_path / "own.log")
    own.setFormatter(logging.Formatter("own: %(message)s"))
    monkeypatch.setattr(log, "handlers", [own])
    request, response, environ = served(head("GET / HTTP/1.1"), "200 OK", 2)
    access_logger.access(response, request, environ, timedelta(microseconds=1234))
    own.close()
    assert (tmp_path / "own.log").read_text().startswith("own: 203.0.113.9 - - ")
    assert Path(access_logger.cfg.accesslog).read_bytes() == b""


def test_one_failing_handler_does_not_keep_the_line_from_the_others(access_logger, monkeypatch):
    log = access_logger.access_log
    gunicorns = [handler for handler in log.handlers if getattr(handler, "_gunicorn", False)]
    failing = logging.StreamHandler(type("Broken", (), {"write": lambda self, text: 1 / 0, "flush": lambda self: None})())
    failing.setFormatter(logging.Formatter("%(message)s"))
    errors = []
    monkeypatch.setattr(log, "handlers", [failing, *gunicorns])
    monkeypatch.setattr(access_logger, "error", errors.append)
    request, response, environ = served(head("GET / HTTP/1.1"), "200 OK", 2)
    access_logger.access(response, request, environ, timedelta(microseconds=1234))
    assert Path(access_logger.cfg.accesslog).read_text().startswith("203.0.113.9 - - ")
    assert len(errors) == 1 and "ZeroDivisionError" in errors[0]


def test_an_access_logger_above_info_writes_nothing(access_logger):
    request, response, environ = served(head("GET / HTTP/1.1"), "200 OK", 2)
    access_logger.access_log.setLevel(logging.WARNING)
    try:
        access_logger.access(response, request, environ, timedelta(microseconds=1234))
    finally:
        access_logger.access_log.setLevel(logging.INFO)
    assert Path(access_logger.cfg.accesslog).read_bytes() == b""


def test_another_format_takes_the_general_path_redacted(tmp_path):
    cfg = Config()
    cfg.set("accesslog", str(tmp_path / "access.log"))
    cfg.set("access_log_format", '%(U)s "%({referer}i)s" %({x-return-to}i)s')
    logger = GunicornLogger(cfg)
    try:
        request, response, environ = served(head(
            f"GET /checkout/{CHECKOUT_TOKEN}/ HTTP/1.1", f"Referer: /checkout/{CHECKOUT_TOKEN}/".encode(),
            f"X-Return-To: /.well-known/agents/inspect/{INSPECTOR_SECRET}".encode(),
        ), "200 OK", 2)
        logger.access(response, request, environ, timedelta(microseconds=1234))
    finally:
        remove_gunicorn_handlers(logger)
    assert (tmp_path / "access.log").read_text() == (
        '/checkout/[redacted]/ "/checkout/[redacted]/" /.well-known/agents/inspect/[redacted]\n'
    )


class RequestLineFormatter(logging.Formatter):
    """An operator's formatter reading the atoms, as JSON access-log recipes do."""

    def format(self, record):
        return f"request={record.args['r']} status={record.args['s']}"


@pytest.fixture
def restored_logging():
    """logconfig_dict reconfigures the process's logging: put the root logger back afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_an_own_logging_config_gets_the_atoms(tmp_path, restored_logging):
    cfg = Config()
    cfg.set("logconfig_dict", {
        "formatters": {"request_line": {"()": "tests.test_access_log.RequestLineFormatter"}},
        "handlers": {"access_file": {"class": "logging.FileHandler", "filename": str(tmp_path / "access.log"),
                                     "formatter": "request_line"}},
        "loggers": {"gunicorn.access": {"level": "INFO", "handlers": ["access_file"], "propagate": False}},
        "root": {"level": "WARNING", "handlers": []},
    })
    logger = GunicornLogger(cfg)
    try:
        request, response, environ = served(head(f"GET /checkout/{CHECKOUT_TOKEN}/ HTTP/1.1"), "200 OK", 2)
        logger.access(response, request, environ, timedelta(microseconds=1234))
    finally:
        remove_gunicorn_handlers(logger)
    assert (tmp_path / "access.log").read_text() == "request=GET /checkout/[redacted]/ HTTP/1.1 status=200\n"


def tiny_app(environ, start_response):
    """The WSGI application the live test serves: the access log is what it is about."""
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


LIVE_REQUESTS = [
    # (method, target, headers, the line expected with the time as [time])
    ("GET", "/", {}, '127.0.0.1 - - [time] "GET / HTTP/1.1" 200 2 "-" "-"'),
    ("GET", f"/checkout/{CHECKOUT_TOKEN}/", {"User-Agent": "Mozilla/5.0"},
     '127.0.0.1 - - [time] "GET /checkout/[redacted]/ HTTP/1.1" 200 2 "-" "Mozilla/5.0"'),
    ("POST", f"/checkout/{CHECKOUT_TOKEN}/?again=1", {"Content-Length": "0"},
     '127.0.0.1 - - [time] "POST /checkout/[redacted]/?again=1 HTTP/1.1" 200 2 "-" "-"'),
    ("GET", "/static/site.css", {"Referer": f"http://shop.example/checkout/{CHECKOUT_TOKEN}/"},
     '127.0.0.1 - - [time] "GET /static/site.css HTTP/1.1" 200 2 "http://shop.example/checkout/[redacted]/" "-"'),
    ("GET", f"/.well-known/agents/inspect/{INSPECTOR_SECRET}/state", {"User-Agent": 'Bot "7" \\'},
     '127.0.0.1 - - [time] "GET /.well-known/agents/inspect/[redacted]/state HTTP/1.1" 200 2 "-" "Bot \\"7\\" \\"'),
    ("HEAD", "/", {"Authorization": "Basic " + base64.b64encode(b"ada:pw").decode()},
     '127.0.0.1 - ada [time] "HEAD / HTTP/1.1" 200 0 "-" "-"'),
]


def send(port, method, target, headers):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        return connection.getresponse().read()
    finally:
        connection.close()


def wait_until_serving(process, port, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"gunicorn exited with {process.returncode}"
        try:
            return send(port, "GET", "/ready", {})
        except OSError:
            time.sleep(0.2)
    raise AssertionError("gunicorn did not start in time")


def test_the_shipped_config_writes_one_redacted_line_per_request(tmp_path):
    port = free_port()
    env = {"PATH": "/usr/bin:/bin", "HOST": "127.0.0.1", "PORT": str(port), "WORKERS": "2",
           "PYTHONIOENCODING": "utf-8"}
    with open(tmp_path / "stdout", "wb") as stdout, open(tmp_path / "stderr", "wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", "deploy/gunicorn.conf.py", "tests.test_access_log:tiny_app"],
            cwd=ROOT, env=env, stdout=stdout, stderr=stderr,
        )
        try:
            wait_until_serving(process, port)
            for method, target, headers, _ in LIVE_REQUESTS:
                send(port, method, target, headers)
        finally:
            process.terminate()
            process.wait(timeout=30)

    access_log = (tmp_path / "stdout").read_text(encoding="utf-8")
    lines = [re.sub(r"\[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\]", "[time]", line, count=1)
             for line in access_log.splitlines()]
    # Two workers: a request's line may follow the next request's.
    assert sorted(lines) == sorted(['127.0.0.1 - - [time] "GET /ready HTTP/1.1" 200 2 "-" "-"',
                                    *(expected for *_, expected in LIVE_REQUESTS)])
    assert CHECKOUT_TOKEN not in access_log and INSPECTOR_SECRET not in access_log
