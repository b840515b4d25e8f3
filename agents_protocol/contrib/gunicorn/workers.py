"""gunicorn's own refusals in the protocol's envelope: the worker classes for a site gunicorn serves.

gunicorn answers some requests itself, before the WSGI application runs: a request line or
header block past its limits (414, 431), a request it cannot read as HTTP/1.1 (400; 501 for a
transfer coding it does not know), one it refuses (403 for a proxy line or TLS it does not
accept, 417 for an expectation it does not meet), and an error raised out of the application
(500). It writes those answers as HTML pages. An agent reads JSON, so these workers write the
same status in the envelope every other answer uses, `{"ok": false, "error", "code"}`, with
`Connection: close` as gunicorn does. gunicorn still decides the status, logs the refusal
and writes the access log line.

    # gunicorn.conf.py
    worker_class = "agents_protocol.contrib.gunicorn.workers.SyncWorker"
    # or, with threads > 1 (gunicorn would swap any *SyncWorker for its own gthread worker):
    worker_class = "agents_protocol.contrib.gunicorn.workers.ThreadWorker"

gunicorn answers them in its worker's `handle_error()`, which these classes extend: gunicorn's
own runs as it is, writing to a `GunicornsAnswer` that keeps its status line, and the envelope
with that status goes to the client instead of the page.
These classes also wrap the application in bodies.py's BodyReadTimeout: a body that stops
arriving is 408 in the envelope within seconds.
"""
from http import HTTPStatus

from gunicorn import util
from gunicorn.workers import gthread, sync

from agents_protocol.contrib.gunicorn.bodies import BodiesReadUnderTimeout
from agents_protocol.core import codec
from agents_protocol.core.errors import CapabilityError, envelope_of
from agents_protocol.http.cors import EXPOSED_HEADERS

MAX_DETAIL_CHARACTERS = 200  # of gunicorn's message, which may quote the request line


class EnvelopeRefusals:
    """Mixed into a gunicorn worker class: its process writes gunicorn's refusals in the envelope."""

    def handle_error(self, req, client, addr, exc):
        answer = GunicornsAnswer(client)
        super().handle_error(req, answer, addr, exc)
        if answer.status is not None:
            try:
                write_envelope(client, answer.status, answer.reason, str(exc))
            except Exception:
                self.log.debug("Failed to send error message.")  # as gunicorn's own handle_error()


class SyncWorker(EnvelopeRefusals, BodiesReadUnderTimeout, sync.SyncWorker):
    """gunicorn's sync worker (one request at a time per process)."""


class ThreadWorker(EnvelopeRefusals, BodiesReadUnderTimeout, gthread.ThreadWorker):
    """gunicorn's gthread worker (`threads` requests at a time per process, keep-alive)."""


class GunicornsAnswer:
    """The client's socket for gunicorn's handle_error(): what gunicorn sends is kept, not sent
    (its status line is read from it); everything else is the socket's own."""

    def __init__(self, client):
        self.client = client
        self.status = self.reason = None

    def sendall(self, data):
        status_line = data.split(b"\r\n", 1)[0].decode("latin-1")  # "HTTP/1.1 414 URI Too Long"
        status, _, self.reason = status_line.partition(" ")[2].partition(" ")
        self.status = int(status)

    def __getattr__(self, name):
        return getattr(self.client, name)


def write_envelope(sock, status, reason, message):
    """The envelope with gunicorn's status, in place of its HTML page (and the standard reason
    phrase: gunicorn's says "Bad Request" for its 501)."""
    body = codec.encode(envelope_of(refusal_for(status, message)))
    head = (
        f"HTTP/1.1 {status} {reason_phrase(status, reason)}\r\n"
        "Connection: close\r\n"
        f"Content-Type: {codec.JSON_CONTENT_TYPE}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Cache-Control: no-store\r\n"
        "Access-Control-Allow-Origin: *\r\n"
        f"Access-Control-Expose-Headers: {EXPOSED_HEADERS}\r\n"
        "\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


def reason_phrase(status, reason):
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return reason


def refusal_for(status, message):
    """The envelope's code and sentence for gunicorn's status and the refusal's message."""
    detail = message[:MAX_DETAIL_CHARACTERS]
    if status == 414:
        return CapabilityError(414, "uri_too_long", f"The request line is longer than the server reads ({detail}). "
                               "Send shorter parameters; a POST capability takes them in its JSON body.")
    if status == 431:
        return CapabilityError(431, "headers_too_large", f"The header fields are larger than the server reads "
                               f"({detail}). Send only the headers the API reads.")
    if status >= 500 and status != 501:
        return CapabilityError(status, "internal_error", "The server failed to answer this request; retry with backoff.")
    if status in (400, 501):
        return CapabilityError(status, "invalid_request",
                               f"The server could not read the request as HTTP/1.1 ({detail}).")
    return CapabilityError(status, "invalid_request", f"The server refused the request before reading it ({detail}).")
