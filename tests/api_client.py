"""A small HTTP client for the agent API, shared by the live-server tests (tests/test_api_*.py).

Parameters travel as the protocol says: the query string for GET, a JSON body for every
other method. Nothing here hides a status code: callers assert it with `ok_data` or
`assert_error`.
"""
import requests

API = "/.well-known/agents/api"
SESSION_PATH = f"{API}/session"
TIMEOUT = 10


def auth_headers(token, header="Authorization"):
    """The session token in one of the three accepted headers."""
    return {header: f"Bearer {token}" if header == "Authorization" else token}


class AgentClient:
    """Calls the API of one site, with the session token of its last `start_session` (if any)."""

    def __init__(self, base_url, token=None):
        self.base_url = base_url
        self.token = token

    def request(self, method, path, params=None, headers=None, **kwargs):
        headers = {**(auth_headers(self.token) if self.token else {}), **(headers or {})}
        if params is not None:
            kwargs["params" if method == "GET" else "json"] = params
        return requests.request(method, self.base_url + path, headers=headers, timeout=TIMEOUT, **kwargs)

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
        response = requests.post(self.base_url + SESSION_PATH, json=agent or None, timeout=TIMEOUT)
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

    def __init__(self, base_url):
        self.base_url = base_url
        response = requests.get(f"{base_url}/.well-known/agents.json", timeout=TIMEOUT)
        assert response.status_code == 200
        self.document = response.json()
        self.token = None

    def capability(self, name):
        return next(c for c in self.document["capabilities"] if c["name"] == name)

    def start_session(self):
        response = requests.post(self.base_url + self.document["session"]["create"], timeout=TIMEOUT)
        self.token = ok_data(response, 201)["session_token"]

    def end_session(self):
        response = requests.delete(
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
        client = AgentClient(self.base_url, self.token if capability["requires_session"] else None)
        return client.request(capability["method"], "/".join(segments), params)


def buyable(agent, product):
    """The product's detail, or for a product sold in variants the detail of its first variant in stock."""
    variants = [variant["id"] for variant in product.get("variants", []) if variant["in_stock"]]
    return ok_data(agent.call("detail", id=variants[0])) if variants else product


def purchase_through_agents_json(base_url, query):
    """Run the declared purchase flow (search → detail → cart.add → checkout), using every cart capability.

    The agent buys 3 of the first in-stock result, after adding a second result and removing it;
    a result sold in variants is bought as its first variant in stock, as detail lists them.
    Returns (the product bought, the cart before checkout, the checkout data, the agent).
    """
    agent = DiscoveringAgent(base_url)
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
