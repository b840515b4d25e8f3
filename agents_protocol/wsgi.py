"""Answer repeated requests for the discovery documents without running Django, while the
configuration is unchanged.

Agents fetch agents.json and agents.txt far more often than staff edit the configuration, and
each document is a function of the configuration and of the origin the request names. Through
Django, a document costs what any request costs (the handler, the middleware stack, the
signals): about as much as the benchmark's floor. `DocumentReplay` wraps the site's WSGI
application, the way WhiteNoise can: the first request of a given shape goes through the whole
stack, and the wrapper keeps that answer exactly as the stack gave it (status, every header,
body), labelled with the configuration revision read just before. A later request of the same
shape gets the same answer as long as the revision is unchanged. The revision is one indexed
read per request, the read Django's path makes too, so an admin save shows on the very next
request in every worker.

A request's shape is everything the answer depends on: method, path, query string, the scheme
and host the documents' URLs are built from (with the proxy headers Django may read for them),
and the conditional headers. Kept are only answers a shared cache could keep: 200 to a request
without a query string or conditional header, or 304 to one whose If-None-Match matched; with
`Cache-Control: public`, without `Vary` or `Set-Cookie`. Other methods, requests past the app's
size limits (request_size.py) and any database error go through Django, which answers them as
before. Wrap the application only if no middleware of the site varies these answers otherwise
(a per-request header, say): a replay repeats every header byte for byte.

    # wsgi.py, after Django's setup (the app's modules need its apps loaded)
    application = get_wsgi_application()
    from agents_protocol.wsgi import DocumentReplay
    application = DocumentReplay(application)
"""
from dataclasses import dataclass

from django.db import DatabaseError

from agents_protocol.core.config import current_revision
from agents_protocol.http.middleware import document_paths
from agents_protocol.http.request_size import within_limits

READ_METHODS = ("GET", "HEAD")
SHAPE = (
    "REQUEST_METHOD", "SCRIPT_NAME", "PATH_INFO", "QUERY_STRING", "wsgi.url_scheme", "HTTP_HOST", "SERVER_NAME",
    "SERVER_PORT", "HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PORT",
    "HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE", "HTTP_IF_MATCH", "HTTP_IF_UNMODIFIED_SINCE",
)
CONDITIONAL_HEADERS = ("HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE", "HTTP_IF_MATCH", "HTTP_IF_UNMODIFIED_SINCE")
MAX_KEPT = 256  # shapes: documents × methods × hosts × (unconditional, current ETag); forgotten all at once past it


@dataclass(frozen=True)
class KeptAnswer:
    revision: int
    status: str
    headers: tuple
    body: bytes


class DocumentReplay:
    """WSGI middleware: the discovery documents, replayed from memory within a configuration revision."""

    def __init__(self, application):
        self.application = application
        self.kept = {}

    def __call__(self, environ, start_response):
        if not is_document_request(environ):
            return self.application(environ, start_response)
        try:
            revision = current_revision()
        except DatabaseError:
            return self.application(environ, start_response)
        shape = tuple(environ.get(name) for name in SHAPE)
        answer = self.kept.get(shape)
        if answer is not None and answer.revision == revision:
            start_response(answer.status, list(answer.headers))
            return [answer.body]
        return self.answer_and_keep(environ, start_response, shape, revision)

    def answer_and_keep(self, environ, start_response, shape, revision):
        answered = {}

        def start_and_note(status, headers, exc_info=None):
            answered.update(status=status, headers=tuple(headers))
            return start_response(status, headers, exc_info)

        response = self.application(environ, start_and_note)
        try:
            body = b"".join(response)
        finally:
            if hasattr(response, "close"):
                response.close()
        if answered and may_keep(environ, answered["status"], answered["headers"]):
            if len(self.kept) >= MAX_KEPT:
                self.kept.clear()
            self.kept[shape] = KeptAnswer(revision, answered["status"], answered["headers"], body)
        return [body]


def is_document_request(environ):
    path = environ.get("PATH_INFO", "")
    return (path in document_paths() and environ.get("REQUEST_METHOD") in READ_METHODS
            and within_limits(environ.get("SCRIPT_NAME", "") + path, environ))


def may_keep(environ, status, headers):
    """True for an answer a shared cache could keep and a request shape worth keeping it for."""
    conditional = any(environ.get(name) for name in CONDITIONAL_HEADERS)
    if status != ("304 Not Modified" if conditional else "200 OK") or environ.get("QUERY_STRING"):
        return False
    names = {name.lower(): value for name, value in headers}
    directives = {d.strip().lower() for d in names.get("cache-control", "").split(",")}
    return "public" in directives and "vary" not in names and "set-cookie" not in names
