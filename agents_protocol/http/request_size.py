"""The app's own limits on a request's URL and header block, for every agent path (414, 431).

The front server (gunicorn, nginx …) refuses an over-long request line or header block
itself, before Django runs, with its own page (or, under contrib.gunicorn's worker class, the
envelope without the app's sentence). So the front server's limits are set above
these (deploy/gunicorn.conf.py, docs/deploy.md) and AgentsApiMiddleware checks these first,
before it reads the configuration: an agent past them gets the envelope, 414 `uri_too_long`
or 431 `headers_too_large`, not an HTML page.

What is counted is what the WSGI server hands over:

- the URL: the path (percent-encoded, as `request.get_full_path()` writes it) and the query
  string as sent, with its `?`: what stands between the method and `HTTP/1.1`;
- the header block: each header field as `Name: value` plus its line end, CRLF, for every
  header the environ carries (`HTTP_*`, `CONTENT_TYPE`, `CONTENT_LENGTH`). A header sent twice
  arrives joined with a comma, one field; headers the server drops (gunicorn drops names with
  an underscore) are not counted.
"""
import re

from django.utils.encoding import escape_uri_path

from agents_protocol.core.conf import app_settings
from agents_protocol.core.errors import CapabilityError

FIELD_BYTES = len(": ") + len("\r\n")  # besides the name and the value
PREFIXED_FIELD_BYTES = FIELD_BYTES - len("HTTP_")  # the environ's key is the name after HTTP_
UNPREFIXED_HEADERS = ("CONTENT_TYPE", "CONTENT_LENGTH")
# The characters escape_uri_path() writes as they are: a path of only these is its own escape.
UNESCAPED_PATH = re.compile(r"[A-Za-z0-9/:@&+$,\-_.!~*'()]*")


def url_bytes(request):
    """The bytes of the path and query string (with its `?`) as the request line carries them."""
    path = request.path
    escaped_path = path if UNESCAPED_PATH.fullmatch(path) else escape_uri_path(path)
    return path_and_query_bytes(escaped_path, request.META.get("QUERY_STRING", ""))


def path_and_query_bytes(escaped_path, query):
    size = len(escaped_path.encode())
    if query:
        size += 1 + len(query)  # latin-1 text, as WSGI hands it over: one character per byte
    return size


def header_bytes(request):
    """The bytes of the header block: `Name: value` and CRLF for each field the request carries."""
    return environ_header_bytes(request.META)


def environ_header_bytes(environ):
    """header_bytes() of a WSGI environ (what request.META is made of). WSGI hands values over
    as latin-1 text, one character per byte (any other character would be sent as one `?`)."""
    size = 0
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            if isinstance(value, str):
                size += len(key) + PREFIXED_FIELD_BYTES + len(value)
        elif key in UNPREFIXED_HEADERS and isinstance(value, str):
            size += len(key) + FIELD_BYTES + len(value)
    return size


def within_limits(escaped_path, environ):
    """True when a request for `escaped_path` with this WSGI environ is within both limits."""
    return (path_and_query_bytes(escaped_path, environ.get("QUERY_STRING", "")) <= app_settings.MAX_URL_BYTES
            and environ_header_bytes(environ) <= app_settings.MAX_HEADER_BYTES)


def oversized(request):
    """The 414 or 431 refusal for a request past MAX_URL_BYTES or MAX_HEADER_BYTES; else None."""
    limit = app_settings.MAX_URL_BYTES
    size = url_bytes(request)
    if size > limit:
        return uri_too_long(size, limit)
    limit = app_settings.MAX_HEADER_BYTES
    size = header_bytes(request)
    if size > limit:
        return headers_too_large(size, limit)
    return None


def uri_too_long(size, limit):
    return CapabilityError(
        414, "uri_too_long",
        f"The path and query string are {size} bytes; this site accepts at most {limit}. "
        "Send shorter parameters (agents.json gives each one's length).",
    )


def headers_too_large(size, limit):
    return CapabilityError(
        431, "headers_too_large",
        f"The request's header fields are {size} bytes; this site accepts at most {limit}. "
        "Send only the headers the API reads: the session token, Content-Type and Idempotency-Key.",
    )
