"""Helpers for the tests of a shop that installs agents_protocol.

    from agents_protocol.testing import (
        AgentClient, assert_implements_provider, install_default_config, make_agent_session,
        reset_config_cache, reset_rate_limits,
    )

Typical use in a test's setUp: `reset_config_cache()` and `reset_rate_limits()`; in a
transactional test (LiveServerTestCase), which empties the tables after each test, also
`install_default_config()` (or `serialized_rollback = True` to keep your own data migrations).
Then drive the API as an agent would:

    agent = AgentClient(self.live_server_url)      # real HTTP; AgentClient() uses Django's test Client
    agent.start_session(agent_name="test")
    agent.call("cart.add", item_id="sku-1", quantity=2).data()
"""
import hashlib
import json
import secrets
import urllib.error
import urllib.parse
import urllib.request
from datetime import timedelta

from django.apps import apps
from django.conf import settings
from django.core.cache import caches
from django.db import transaction
from django.test import Client
from django.utils import timezone

from agents_protocol.checks import provider_interface_problems
from agents_protocol.config_io import write_config
from agents_protocol.core import config
from agents_protocol.core.defaults import default_config
from agents_protocol.core.models import AgentSession
from agents_protocol.http import publishing

AGENTS_JSON = "/.well-known/agents.json"
HTTP_TIMEOUT = 10


def reset_config_cache():
    """Forget cached snapshots and documents (revision numbers restart when a test flushes the DB)."""
    config.forget_snapshot()
    config.forget_seen_revision()
    publishing._rendered.cache_clear()


def install_default_config():
    """Write the default configuration, e.g. after a transactional test flushed the tables.

    The rows `import_config(default_config())` writes, without its checks: the default is valid."""
    with transaction.atomic():
        write_config(default_config(), apps.get_model, validate=False)
    reset_config_cache()


def reset_rate_limits():
    """Empty the cache django-ratelimit counts in (RATELIMIT_USE_CACHE), so a test starts with no calls."""
    caches[getattr(settings, "RATELIMIT_USE_CACHE", "default")].clear()


def make_agent_session(raw_token=None, ttl_seconds=1800, **fields):
    """A live agent session; its bearer token is on `.raw_token` (only its hash is stored).

    Any AgentSession field can be given, e.g. `make_agent_session(agent_name="bot", audited=True)`.
    """
    raw_token = raw_token or secrets.token_urlsafe(32)
    now = timezone.now()
    values = {
        "public_id": f"ses_{secrets.token_urlsafe(12)}",
        "token_hash": hashlib.sha256(raw_token.encode()).hexdigest(),
        "client_address": "127.0.0.1",
        "created_at": now,
        "expires_at": now + timedelta(seconds=ttl_seconds),
        **fields,
    }
    session = AgentSession.objects.create(**values)
    session.raw_token = raw_token
    return session


def assert_implements_provider(provider_class):
    """Fail with every method `provider_class` overrides that the app cannot call as
    agents_protocol.core.provider.ShopProvider declares it (check E003)."""
    problems = provider_interface_problems(provider_class)
    assert not problems, f"{provider_class.__name__} overrides methods the app cannot call:\n" + "\n".join(problems)


class AgentResponse:
    """One answer of the site: `status`, `headers` (lower-case names), `body` (bytes)."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = {name.lower(): value for name, value in headers.items()}
        self.body = body

    def __repr__(self):
        return f"<AgentResponse {self.status} {self.body[:300]!r}>"

    def json(self):
        return json.loads(self.body)

    def data(self, status=200):
        """The `data` of a success envelope; fails unless the status and the envelope are as expected."""
        body = self._envelope(status)
        assert body["ok"] is True, body
        return body["data"]

    def error(self, status, code):
        """The body of an error envelope; fails unless the status, `code` and a message are as expected."""
        body = self._envelope(status)
        assert body["ok"] is False and body["code"] == code, body
        assert isinstance(body["error"], str) and body["error"], body
        return body

    def _envelope(self, status):
        assert self.status == status, f"expected {status}, got {self!r}"
        media_type = self.headers.get("content-type", "").split(";")[0]
        assert media_type == "application/json", f"not JSON: {self!r}"
        return self.json()


class AgentClient:
    """An agent that knows only what the site's agents.json declares.

    `call(name, **params)` finds the capability by name, fills its `:name` path segments
    from the parameters and sends the others as the protocol says: the query string for
    GET, a JSON body for every other method. After `start_session()` every call carries
    the session token as `Authorization: Bearer`.

    With `base_url` (e.g. a LiveServerTestCase's `live_server_url`) it speaks real HTTP;
    without, it goes through Django's test Client (`django_client`, or a new one).
    """

    def __init__(self, base_url=None, django_client=None):
        self.base_url = base_url.rstrip("/") if base_url else None
        self.django_client = django_client or (None if self.base_url else Client())
        self.token = None
        self._document = None

    @property
    def document(self):
        """The site's agents.json, fetched on first use."""
        if self._document is None:
            self._document = self.request("GET", AGENTS_JSON).json()
        return self._document

    def capability(self, name):
        found = [c for c in self.document["capabilities"] if c["name"] == name]
        assert found, f"agents.json declares no capability {name!r}"
        return found[0]

    def start_session(self, **agent):
        """Create a session (optional: agent_name, agent_version, purpose); returns its data."""
        session = self.request("POST", self.document["session"]["create"], agent or None).data(201)
        self.token = session["session_token"]
        return session

    def end_session(self):
        """End the session (DELETE); returns its data, including the audit URL when audit is on."""
        return self.request("DELETE", self.document["session"]["delete"]).data()

    def call(self, name, /, **params):
        """Call capability `name` with `params` (a parameter may itself be called `name`)."""
        capability = self.capability(name)
        segments = []
        for segment in capability["endpoint"].split("/"):
            if segment.startswith(":"):
                segment = urllib.parse.quote(str(params.pop(segment[1:])), safe="")
            segments.append(segment)
        return self.request(capability["method"], "/".join(segments), params)

    def request(self, method, path, params=None, headers=None):
        """Send one request; `params` go to the query string for GET, else to a JSON body."""
        headers = {**({"Authorization": f"Bearer {self.token}"} if self.token else {}), **(headers or {})}
        body = None
        if params and method == "GET":
            path = f"{path}?{urllib.parse.urlencode(params, doseq=True)}"
        elif params is not None and method != "GET":
            body = json.dumps(params).encode()
            headers["Content-Type"] = "application/json"
        if self.base_url:
            return self._over_http(method, self.base_url + path, body, headers)
        return self._in_process(method, path, body, headers)

    def _over_http(self, method, url, body, headers):
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # a test site is local
        try:
            with opener.open(request, timeout=HTTP_TIMEOUT) as response:
                return AgentResponse(response.status, response.headers, response.read())
        except urllib.error.HTTPError as error:
            with error:
                return AgentResponse(error.code, error.headers, error.read())

    def _in_process(self, method, path, body, headers):
        content_type = headers.pop("Content-Type", "application/octet-stream")
        response = self.django_client.generic(method, path, body or b"", content_type=content_type, headers=headers)
        return AgentResponse(response.status_code, response.headers, response.content)
