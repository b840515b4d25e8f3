"""agents_protocol.contrib.gunicorn.workers in process: gunicorn's own handle_error() decides the
status, the worker writes it in the envelope instead of gunicorn's page. (Live workers:
tests/test_api_request_size.py.)"""
import http.client
import json
import socket
from http import HTTPStatus

import pytest
from gunicorn import glogging
from gunicorn.config import Config
from gunicorn.http.errors import InvalidRequestLine, LimitRequestLine

from agents_protocol.contrib.gunicorn.workers import SyncWorker, ThreadWorker


def answer_to(worker_class, error):
    """(status, reason, headers, envelope) the worker writes for `error`, read as an HTTP client reads it."""
    worker = worker_class.__new__(worker_class)  # only what handle_error() reads
    worker.cfg = Config()
    worker.log = glogging.Logger(worker.cfg)
    server_side, client_side = socket.socketpair()
    with server_side, client_side:
        worker.handle_error(None, server_side, ("127.0.0.1", 50000), error)
        server_side.shutdown(socket.SHUT_WR)
        response = http.client.HTTPResponse(client_side)
        response.begin()
        return response.status, response.reason, dict(response.getheaders()), json.loads(response.read())


@pytest.mark.parametrize("worker_class", [SyncWorker, ThreadWorker])
def test_a_request_line_past_gunicorns_limit_is_its_414_in_the_envelope(worker_class):
    status, reason, headers, envelope = answer_to(worker_class, LimitRequestLine(9000, 8190))
    assert (status, reason) == (414, HTTPStatus(414).phrase)
    assert envelope["ok"] is False and envelope["code"] == "uri_too_long"
    assert "9000 > 8190" in envelope["error"]  # gunicorn's own figures
    assert headers["Connection"] == "close" and headers["Content-Type"] == "application/json; charset=utf-8"


def test_a_request_gunicorn_cannot_read_is_a_400_envelope():
    status, _, _, envelope = answer_to(SyncWorker, InvalidRequestLine("NOT HTTP AT ALL"))
    assert status == 400 and envelope["code"] == "invalid_request"
    assert "NOT HTTP AT ALL" in envelope["error"]


def test_an_error_out_of_the_application_is_a_500_that_tells_nothing_of_it():
    status, _, _, envelope = answer_to(SyncWorker, RuntimeError("secret detail"))
    assert status == 500 and envelope["code"] == "internal_error"
    assert "secret" not in envelope["error"]
