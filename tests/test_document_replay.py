"""The discovery documents replayed from memory (agents_protocol.wsgi.DocumentReplay) are the
answers Django gives, byte for byte, and never outlive the configuration revision they were
made for.

Against the site's own WSGI application under gunicorn (acme/wsgi.py wraps it); a request with
a query string is never replayed, so it shows what Django itself answers at that moment.
"""
import io
import json

import pytest
import requests

from agents_protocol.core.config import bump_revision
from agents_protocol.wsgi import MAX_KEPT, DocumentReplay
from tests.servers import on_every_worker, set_rate_limit, start_site

DOCUMENTS = ["/.well-known/agents.json", "/.well-known/agents.txt", "/llms.txt", "/.well-known/pactspec.json",
             "/.well-known/agent-card.json", "/.well-known/agents/openapi.json"]
ADDED_BY_GUNICORN = {"date", "server", "connection"}


WORKERS = 2


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    site = start_site(tmp_path_factory.mktemp("replay"), workers=WORKERS, log_worker_pids=True)
    yield site
    site.stop()


def answer(response):
    headers = {name.lower(): value for name, value in response.headers.items() if name.lower() not in ADDED_BY_GUNICORN}
    return response.status_code, headers, response.content


def get(site, path, **kwargs):
    return requests.get(f"{site.url}{path}", timeout=10, **kwargs)


@pytest.mark.parametrize("path", DOCUMENTS)
def test_a_replayed_document_is_the_answer_django_gives(site, path):
    from_django = answer(get(site, f"{path}?through=django"))
    assert from_django[0] == 200

    def replayed_as_django_answers():
        assert answer(get(site, path)) == from_django

    on_every_worker(site, replayed_as_django_answers, WORKERS)


def test_a_matching_etag_is_answered_304_as_django_answers_it(site):
    etag = get(site, "/.well-known/agents.json").headers["ETag"]
    replayed = [answer(get(site, "/.well-known/agents.json", headers={"If-None-Match": etag})) for _ in range(4)]
    from_django = answer(get(site, "/.well-known/agents.json?through=django", headers={"If-None-Match": etag}))
    assert from_django[0] == 304 and from_django[2] == b""
    assert all(each == from_django for each in replayed)
    stale = get(site, "/.well-known/agents.json", headers={"If-None-Match": '"something-else"'})
    assert stale.status_code == 200 and stale.json()["site"]["name"]


def test_head_gets_the_headers_of_get_without_a_body(site):
    full = answer(get(site, "/.well-known/agents.txt"))
    for _ in range(4):
        head = requests.head(f"{site.url}/.well-known/agents.txt", timeout=10)
        assert head.status_code == 200 and head.content == b""
        assert answer(head)[1] == full[1]


def test_requests_django_would_refuse_are_still_refused_after_a_replay(site):
    assert get(site, "/.well-known/agents.json").status_code == 200  # kept
    foreign_host = get(site, "/.well-known/agents.json", headers={"Host": "evil.example"})
    assert foreign_host.status_code == 400
    padding = {"X-Padding-1": "x" * 4500, "X-Padding-2": "x" * 4500}  # each within gunicorn's field limit
    oversized = get(site, "/.well-known/agents.json", headers=padding)
    assert oversized.status_code == 431 and oversized.json()["code"] == "headers_too_large"
    posted = requests.post(f"{site.url}/.well-known/agents.json", timeout=10)
    assert posted.status_code == 405 and posted.json()["code"] == "method_not_allowed"


def test_a_configuration_change_shows_on_the_next_request_of_every_worker(site):
    def kept_old():
        assert get(site, "/.well-known/agents.json").json()["rate_limit"]["requests_per_minute"] == 60

    def shows_new():
        assert get(site, "/.well-known/agents.json").json()["rate_limit"]["requests_per_minute"] == 41
        assert get(site, "/.well-known/agents.txt").text.count("Rate-Limit: 41/minute") == 1
        assert get(site, "/.well-known/agents.json", headers={"If-None-Match": etag}).status_code == 200

    on_every_worker(site, kept_old, WORKERS)  # each worker keeps the old document now
    etag = get(site, "/.well-known/agents.json").headers["ETag"]
    set_rate_limit(site, 41)
    try:
        on_every_worker(site, shows_new, WORKERS)
    finally:
        set_rate_limit(site, 60)


class CountingApplication:
    """A WSGI application that answers like a document view and counts how often it ran."""

    def __init__(self, status="200 OK", headers=(("Cache-Control", "public, max-age=0"),)):
        self.status, self.headers, self.calls = status, list(headers), 0

    def __call__(self, environ, start_response):
        self.calls += 1
        start_response(self.status, self.headers)
        return [f"answer {self.calls}".encode()]


def environ(path="/.well-known/agents.json", method="GET", **extra):
    return {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "testserver",
            "SERVER_PORT": "80", "HTTP_HOST": "testserver", "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(),
            **extra}


def call(application, **request):
    started = []
    body = b"".join(application(environ(**request), lambda status, headers, exc_info=None: started.append(status)))
    return started[0], body


@pytest.mark.django_db
def test_the_application_runs_again_only_when_the_revision_moves():
    inner = CountingApplication()
    replay = DocumentReplay(inner)
    assert [call(replay) for _ in range(3)] == [("200 OK", b"answer 1")] * 3
    bump_revision()
    assert [call(replay) for _ in range(2)] == [("200 OK", b"answer 2")] * 2
    assert inner.calls == 2


@pytest.mark.django_db
@pytest.mark.parametrize("request_, headers", [
    ({"path": "/catalog/"}, (("Cache-Control", "public"),)),
    ({"method": "POST"}, (("Cache-Control", "public"),)),
    ({"QUERY_STRING": "a=1"}, (("Cache-Control", "public"),)),
    ({"HTTP_IF_NONE_MATCH": '"other"'}, (("Cache-Control", "public"),)),
    ({}, (("Cache-Control", "no-store"),)),
    ({}, (("Cache-Control", "public"), ("Vary", "Accept-Language"))),
    ({}, (("Cache-Control", "public"), ("Set-Cookie", "a=b"))),
])
def test_what_is_never_kept(request_, headers):
    inner = CountingApplication(headers=headers)
    replay = DocumentReplay(inner)
    for _ in range(3):
        call(replay, **request_)
    assert inner.calls == 3


@pytest.mark.django_db
def test_errors_are_never_kept():
    inner = CountingApplication(status="503 Service Unavailable")
    replay = DocumentReplay(inner)
    for _ in range(3):
        call(replay)
    assert inner.calls == 3


@pytest.mark.django_db
def test_what_is_kept_stays_bounded():
    replay = DocumentReplay(CountingApplication())
    for number in range(MAX_KEPT * 2):
        call(replay, HTTP_HOST=f"host{number}.example")
        assert len(replay.kept) <= MAX_KEPT


def test_agents_json_is_served_through_the_replay(site):
    """The site's WSGI entry point is wrapped: what gunicorn serves is DocumentReplay's."""
    result = site.manage("shell", "--no-imports", "-c",
                         "from acme.wsgi import application; print(type(application).__name__)")
    assert result.stdout.strip() == "DocumentReplay", result.stderr
    assert json.loads(get(site, "/.well-known/agents.json").content)["capabilities"]
