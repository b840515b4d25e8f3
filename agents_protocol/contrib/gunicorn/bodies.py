"""A request body that stops arriving frees its worker within seconds: 408 in the envelope.

gunicorn's workers read a body only when the application asks for it, and wait on the client's
socket without a timeout of their own: a client that announces `Content-Length: 1000` and sends
15 bytes holds a sync worker until gunicorn's `timeout` replaces it (30 s, then a 500), and as
many such connections as there are workers stop the site. The workers of workers.py wrap the
application in `BodyReadTimeout`, which gives the client's socket (WSGI's `gunicorn.socket`)
READ_TIMEOUT_SECONDS per read while the body is read:

- a body of up to MAX_BUFFERED_BYTES (every agent call: MAX_BODY_BYTES is 64 KiB) is read
  whole before the application runs; one that stalls is answered 408 `invalid_request` in the
  envelope (the sync worker closes every connection after its answer);
- a larger one (an upload to a page) is read by the application as it goes, under the same
  timeout: a stall is then the application's error for a body it could not read
  (Django's UnreadablePostError), within seconds too.

The timeout is per read, as nginx's `client_body_timeout`: a client that keeps sending, however
slowly, is bounded by gunicorn's `timeout`. Writing the answer has no timeout, as before.
"""
import io

from agents_protocol.core import codec
from agents_protocol.core.errors import CapabilityError, envelope_of
from agents_protocol.http.cors import EXPOSED_HEADERS

READ_TIMEOUT_SECONDS = 10
MAX_BUFFERED_BYTES = 1024 * 1024
CHUNK_BYTES = 64 * 1024


class BodiesReadUnderTimeout:
    """Mixed into a gunicorn worker class: its process wraps the application in BodyReadTimeout."""

    def load_wsgi(self):
        super().load_wsgi()
        self.wsgi = BodyReadTimeout(self.wsgi)


class BodyReadTimeout:
    """WSGI middleware: the request body read under a timeout (see the module's docstring)."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        length = declared_length(environ)
        sock = environ.get("gunicorn.socket")
        if not length or sock is None:
            return self.application(environ, start_response)
        sock.settimeout(READ_TIMEOUT_SECONDS)
        try:
            if length <= MAX_BUFFERED_BYTES:
                try:
                    environ["wsgi.input"] = io.BytesIO(read_whole(environ["wsgi.input"], length))
                except TimeoutError:
                    return timed_out(start_response)
            return self.application(environ, start_response)
        finally:
            sock.settimeout(None)


def declared_length(environ):
    text = environ.get("CONTENT_LENGTH") or ""
    return int(text) if text.isascii() and text.isdigit() else None


def read_whole(stream, length):
    """`length` bytes of `stream` (fewer if the client closes first: the application sees a short body)."""
    chunks = []
    while length > 0:
        chunk = stream.read(min(length, CHUNK_BYTES))
        if not chunk:
            break
        chunks.append(chunk)
        length -= len(chunk)
    return b"".join(chunks)


def timed_out(start_response):
    refusal = CapabilityError(408, "invalid_request", f"The request body stopped arriving for "
                              f"{READ_TIMEOUT_SECONDS} seconds; send the whole body with the request.")
    body = codec.encode(envelope_of(refusal))
    start_response("408 Request Timeout", [
        ("Content-Type", codec.JSON_CONTENT_TYPE),
        ("Content-Length", str(len(body))),
        ("Cache-Control", "no-store"),
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Expose-Headers", EXPOSED_HEADERS),
    ])
    return [body]
