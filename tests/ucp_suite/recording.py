"""The site's WSGI application, recording every exchange of the conformance run: the site that
tests/test_ucp_conformance.py serves is `tests.ucp_suite.recording:application`, so what the
suite's flows get is read back and validated afterwards, with nothing added to the app itself.

Each gunicorn worker appends one JSON line per exchange to a file of its own in
$UCP_RECORD_DIR: method, path, status, Content-Type and the request's and answer's bodies.
"""
import io
import json
import os
from pathlib import Path

from acme.wsgi import application as site


def application(environ, start_response):
    request_body = _read_body(environ)
    answer = {}

    def recording_start_response(status, headers, exc_info=None):
        answer.update(status=int(status.split()[0]), headers=dict((name.lower(), value) for name, value in headers))
        return start_response(status, headers, exc_info)

    chunks = site(environ, recording_start_response)
    try:
        body = b"".join(chunks)
    finally:
        if hasattr(chunks, "close"):
            chunks.close()
    _record({
        "method": environ["REQUEST_METHOD"], "path": environ.get("PATH_INFO", ""),
        "request_body": request_body.decode("utf-8", "replace"),
        "status": answer["status"], "content_type": answer["headers"].get("content-type", ""),
        "body": body.decode("utf-8", "replace"),
    })
    return [body]


def _read_body(environ):
    """The request's body, put back for the site to read."""
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length) if length else b""
    environ["wsgi.input"] = io.BytesIO(body)
    return body


def _record(exchange):
    path = Path(os.environ["UCP_RECORD_DIR"]) / f"exchanges-{os.getpid()}.jsonl"
    with path.open("a") as log:
        log.write(json.dumps(exchange) + "\n")
