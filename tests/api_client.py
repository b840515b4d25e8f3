"""A small HTTP client for the agent API, shared by the API tests (tests/test_api_*.py), and
requests' API answered in process.

Parameters travel as the protocol says: the query string for GET, a JSON body for every
other method. Nothing here hides a status code: callers assert it with `ok_data` or
`assert_error`.

`InProcessRequests` is `requests`' module API (`request`, `get`, `post` …, `Session`) with every
request answered by Django's test client: the site's WSGI handler in the test's thread, on the
test's database connection (so in its rolled-back transaction), with no socket. The answer is a
`requests.Response` like any other, so a test reads it the same way over either. The site's URL
in process is `IN_PROCESS_URL` (the test client's host).
"""
import io
from http.client import HTTPMessage
from types import SimpleNamespace
from urllib.parse import urlsplit, urlunsplit

import requests
from urllib3 import HTTPHeaderDict, HTTPResponse

API = "/.well-known/agents/api"
SESSION_PATH = f"{API}/session"
TIMEOUT = 10
IN_PROCESS_URL = "http://testserver"


class InProcessAdapter(requests.adapters.HTTPAdapter):
    """Sends requests' prepared requests through a Django test client instead of a connection.

    What requests would write on the wire is what the site reads: every header as sent (its
    Host from the URL, Content-Length included), the body as bytes (a str body as Latin-1, as
    http.client sends it), cookies only as requests sends them (the test client's own jar is
    emptied first). Streaming bodies (generators, files) are for the real-HTTP tests.
    """

    def __init__(self, django_client):
        super().__init__()
        self.django_client = django_client

    def send(self, request, **kwargs):
        url = urlsplit(request.url)
        headers = {"Host": url.netloc}
        headers.update((name, value.decode("latin-1") if isinstance(value, bytes) else value)
                       for name, value in request.headers.items())
        body = request.body or b""
        if isinstance(body, str):
            body = body.encode("latin-1")
        if not isinstance(body, bytes):
            raise TypeError(f"in process, a body is bytes or str, not {type(body).__name__}")
        self.django_client.cookies.clear()
        answer = self.django_client.generic(
            request.method, urlunsplit(("", "", url.path, url.query, "")), body,
            content_type=headers.get("Content-Type", ""), secure=url.scheme == "https", headers=headers)
        return self.build_response(request, as_urllib3(answer, request.method))


def as_urllib3(answer, method):
    """A test client's answer as the urllib3 response requests builds its Response from."""
    content = b"".join(answer.streaming_content) if answer.streaming else answer.content
    headers, message = HTTPHeaderDict(), HTTPMessage()
    fields = [*answer.items(), *(("Set-Cookie", morsel.OutputString()) for morsel in answer.cookies.values())]
    for name, value in fields:
        headers.add(name, value)
        message[name] = value
    # http.client's response, as far as urllib3 (closed: all read) and requests (its cookies) look at it
    sent = SimpleNamespace(msg=message, isclosed=lambda: True, close=lambda: None)
    return HTTPResponse(body=io.BytesIO(content), headers=headers, status=answer.status_code,
                        reason=answer.reason_phrase, preload_content=False, original_response=sent,
                        request_method=method)


class InProcessRequests:
    """`requests`' functions, answered in process by `django_client` (see the module's docstring).

    Like the module functions, each call is a session of its own: no cookie outlives it. A test
    that is a browser-like visitor keeping cookies uses `Session()`.
    """

    def __init__(self, django_client):
        self.django_client = django_client

    def Session(self):  # noqa: N802 (named as requests.Session, which it stands for)
        session = requests.Session()
        adapter = InProcessAdapter(self.django_client)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        return session

    def request(self, method, url, **kwargs):
        with self.Session() as session:
            return session.request(method, url, **kwargs)

    def get(self, url, params=None, **kwargs):
        return self.request("GET", url, params=params, **kwargs)

    def head(self, url, **kwargs):
        return self.request("HEAD", url, **kwargs)

    def options(self, url, **kwargs):
        return self.request("OPTIONS", url, **kwargs)

    def post(self, url, data=None, json=None, **kwargs):
        return self.request("POST", url, data=data, json=json, **kwargs)

    def put(self, url, data=None, **kwargs):
        return self.request("PUT", url, data=data, **kwargs)

    def patch(self, url, data=None, **kwargs):
        return self.request("PATCH", url, data=data, **kwargs)

    def delete(self, url, **kwargs):
        return self.request("DELETE", url, **kwargs)


class Site(str):
    """A site's base URL, which `http` reaches: requests over a socket, or InProcessRequests."""

    def __new__(cls, url, http):
        site = super().__new__(cls, url)
        site.http = http
        return site


def auth_headers(token, header="Authorization"):
    """The session token in one of the three accepted headers."""
    return {header: f"Bearer {token}" if header == "Authorization" else token}


class AgentClient:
    """Calls the API of one site, with the session token of its last `start_session` (if any):
    over real HTTP at `base_url`, or with `django_client` in process (at IN_PROCESS_URL)."""

    def __init__(self, base_url=None, token=None, django_client=None):
        self.django_client = django_client
        self.http = requests if django_client is None else InProcessRequests(django_client)
        self.base_url = base_url or IN_PROCESS_URL
        self.token = token

    def request(self, method, path, params=None, headers=None, **kwargs):
        headers = {**(auth_headers(self.token) if self.token else {}), **(headers or {})}
        if params is not None:
            kwargs["params" if method == "GET" else "json"] = params
        return self.http.request(method, self.base_url + path, headers=headers, timeout=TIMEOUT, **kwargs)

    def get(self, path, params=None, **kwargs):
        return self.request("GET", path, params, **kwargs)

    def post(self, path, params=None, **kwargs):
        return self.request("POST", path, params, **kwargs)

    def put(self, path, params=None, **kwargs):
        return self.request("PUT", path, params, **kwargs)

    def delete(self, path, params=None, **kwargs):
        return self.request("DELETE", path, params, **kwargs)

    def start_session(self, **agent):
        """Create a session (optional body: agent_name, agent_version, purpose); returns its data."""
        response = self.http.post(self.base_url + SESSION_PATH, json=agent or None, timeout=TIMEOUT)
        session = ok_data(response, 201)
        self.token = session["session_token"]
        return session

    def add_to_cart(self, item_id, quantity=1):
        return ok_data(self.post(f"{API}/cart/add", {"item_id": item_id, "quantity": quantity}))

    def cart(self):
        return ok_data(self.get(f"{API}/cart/view"))


def ok_data(response, status=200):
    """The `data` of a success envelope, after checking its status and shape."""
    assert response.status_code == status, f"{response.status_code}: {response.text}"
    assert is_json(response), response.headers["Content-Type"]
    body = response.json()
    assert body["ok"] is True, body
    return body["data"]


def assert_error(response, status, code):
    """Check an error envelope (status, JSON, stable code, a sentence); returns the body."""
    assert response.status_code == status, f"{response.status_code}: {response.text}"
    assert is_json(response), response.headers["Content-Type"]
    body = response.json()
    assert body["ok"] is False, body
    assert body["code"] == code, body
    assert isinstance(body["error"], str) and body["error"], body
    return body


def is_json(response):
    return response.headers.get("Content-Type", "").split(";")[0] == "application/json"


class DiscoveringAgent:
    """An agent that knows nothing but what the site's agents.json declares.

    It finds capabilities by name, fills `:name` path segments from the parameters and
    sends the rest per method (GET: query string, others: JSON body).
    """

    def __init__(self, base_url=None, django_client=None):
        """Over real HTTP at `base_url`, or with `django_client` in process (as AgentClient)."""
        self.django_client = django_client
        self.http = requests if django_client is None else InProcessRequests(django_client)
        self.base_url = base_url or IN_PROCESS_URL
        response = self.http.get(f"{self.base_url}/.well-known/agents.json", timeout=TIMEOUT)
        assert response.status_code == 200
        self.document = response.json()
        self.token = None

    def capability(self, name):
        return next(c for c in self.document["capabilities"] if c["name"] == name)

    def start_session(self):
        response = self.http.post(self.base_url + self.document["session"]["create"], timeout=TIMEOUT)
        self.token = ok_data(response, 201)["session_token"]

    def end_session(self):
        response = self.http.delete(
            self.base_url + self.document["session"]["delete"], headers=auth_headers(self.token), timeout=TIMEOUT
        )
        return ok_data(response)

    def call(self, name, **params):
        capability = self.capability(name)
        segments = []
        for segment in capability["endpoint"].split("/"):
            if segment.startswith(":"):
                segment = str(params.pop(segment[1:]))
            segments.append(segment)
        client = AgentClient(self.base_url, self.token if capability["requires_session"] else None,
                             self.django_client)
        return client.request(capability["method"], "/".join(segments), params)


def buyable(agent, product):
    """The product's detail, or for a product sold in variants the detail of its first variant in stock."""
    variants = [variant["id"] for variant in product.get("variants", []) if variant["in_stock"]]
    return ok_data(agent.call("detail", id=variants[0])) if variants else product


def purchase_through_agents_json(base_url, query, django_client=None):
    """Run the declared purchase flow (search → detail → cart.add → checkout), using every cart capability.

    The agent buys 3 of the first in-stock result, after adding a second result and removing it;
    a result sold in variants is bought as its first variant in stock, as detail lists them.
    Returns (the product bought, the cart before checkout, the checkout data, the agent).
    """
    agent = DiscoveringAgent(base_url, django_client)
    assert agent.document["flows"][0]["steps"] == ["search", "detail", "cart.add", "checkout"]
    found = [result["id"] for result in ok_data(agent.call("search", q=query))["results"] if result["in_stock"]]
    product, other = (buyable(agent, ok_data(agent.call("detail", id=item_id))) for item_id in found[:2])
    item_id, other_id = product["id"], other["id"]
    agent.start_session()
    ok_data(agent.call("cart.add", item_id=item_id, quantity=2))
    ok_data(agent.call("cart.add", item_id=other_id))
    ok_data(agent.call("cart.update", item_id=item_id, quantity=3))
    ok_data(agent.call("cart.remove", item_id=other_id))
    cart = ok_data(agent.call("cart.view"))
    handoff = ok_data(agent.call("checkout"))
    return product, cart, handoff, agent
