"""Regenerate docs/api.md from a real run: `make docs-api`.

Starts the site under gunicorn on a throwaway database with the demo catalog, sends
every documented request, and writes each request with the response it really got.
"""
import json
import sys
import tempfile
from pathlib import Path

import requests
import simplejson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import start_site  # noqa: E402

API = "/.well-known/agents/api"
OUTPUT = ROOT / "docs" / "api.md"
SHOWN_HEADERS = ("Content-Type", "Allow", "Retry-After", "WWW-Authenticate", "ETag", "Cache-Control",
                 "Idempotent-Replayed")

INTRO = """# Agent API reference

Every example below was captured from a real run of this site (`make docs-api`
regenerates the page; tokens, ids and times differ on each run).

- Discovery: `GET /.well-known/agents.txt`, `GET /.well-known/agents.json`.
- All API endpoints are origin-relative paths under `/.well-known/agents/api` by default;
  staff can move them in admin, so agents should read them from agents.json.
- Parameters: GET sends them in the query string; POST, PUT, PATCH and DELETE send a JSON
  object body with `Content-Type: application/json` (DELETE also accepts the query string).
  Unknown parameters are ignored. `name`/`price` sent to `cart.add` are ignored: prices
  always come from the shop.
- Sessions: `POST /session` returns a `session_token`; send it as
  `Authorization: Bearer <token>` (or `X-Session-Token`, or `X-Agent-Session`). Sessions end
  `ttl_seconds` after creation, whatever the activity.
- Retries: a POST (session create, `cart.add`, `checkout`, `contact`, any POST capability) may
  carry an `Idempotency-Key` header (1 to 255 visible ASCII characters, e.g. a UUID). Sending
  the same request again with the same key runs it once: the stored answer comes back with
  `Idempotent-Replayed: true`. The same key with a different body (or endpoint) is 422
  `idempotency_conflict`; while the first request is still running, 409
  `idempotency_in_flight` with `Retry-After`. Keys are kept 24 hours, per session (per client
  address for session create and calls without a session), so no agent can replay another's.
  Answers that ask for a retry (409, 429, 5xx) are not kept: retry them with the same key.
  GET, PUT and DELETE ignore the header (they are idempotent already).
- Every response is `{"ok": true, "data": …}` or
  `{"ok": false, "error": "<sentence>", "code": "<machine_code>", "fields"?: {…}}` and carries
  `X-Request-ID`. Money is a JSON number with two decimals plus a `currency`.

| status | codes |
|---|---|
| 400 | `invalid_params` (with `fields`), `invalid_json`, `invalid_quantity`, `quantity_above_maximum`, `insufficient_stock`, `cart_empty`, `currency_mismatch`, `invalid_idempotency_key` |
| 401 | `session_required`, `session_invalid`, `session_expired`, `session_ended` |
| 404 | `not_found` (no such endpoint), `unknown_item`, `unknown_category`, `item_not_in_cart` |
| 405 | `method_not_allowed` (with an `Allow` header) |
| 409 | `cart_not_open`, `idempotency_in_flight` (with `Retry-After`) |
| 413 | `payload_too_large` (bodies over 64 KiB) |
| 415 | `unsupported_media_type` |
| 422 | `idempotency_conflict` |
| 429 | `rate_limited`, `too_many_sessions` (with `Retry-After`) |
| 500 | `internal_error` (quote the `X-Request-ID`) |
| 501 | `not_implemented` (a capability with no handler) |
| 503 | `backend_unavailable` (database or cache down; with `Retry-After`) |
"""


class Recorder:
    def __init__(self, base_url):
        self.base_url = base_url
        self.sections = [INTRO]
        self.secrets = {}

    def redact(self, secret, placeholder):
        """Show `placeholder` wherever `secret` (a token from this run) would be printed."""
        self.secrets[secret] = placeholder

    def heading(self, text):
        self.sections.append(f"\n## {text}\n")

    def call(self, title, method, path, *, body=None, raw_body=None, headers=None, show_full=True):
        headers = dict(headers or {})
        data = raw_body
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body)
        response = requests.request(method, self.base_url + path, data=data, headers=headers, timeout=10)
        self.sections.append(self._example(title, method, path, headers, data, response, show_full))
        return response

    def _example(self, title, method, path, headers, data, response, show_full):
        request_lines = [f"{method} {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in headers.items()]
        if data:
            request_lines += ["", data if len(data) < 400 else data[:120] + f"… ({len(data)} bytes)"]
        response_lines = [f"HTTP/1.1 {response.status_code} {response.reason}"]
        response_lines += [f"{k}: {response.headers[k]}" for k in SHOWN_HEADERS if k in response.headers]
        response_lines += ["", self._body(response, show_full)]
        return (f"\n### {title}\n\n```http\n" + "\n".join(request_lines) + "\n```\n\n```http\n"
                + "\n".join(response_lines).rstrip() + "\n```\n")

    @staticmethod
    def _body(response, show_full):
        if not response.content:
            return ""
        if "json" not in response.headers.get("Content-Type", ""):
            return response.text
        # simplejson keeps money as written on the wire (56.00), json would print 56.0.
        text = simplejson.dumps(simplejson.loads(response.text, use_decimal=True), indent=2,
                                ensure_ascii=False, use_decimal=True)
        lines = text.splitlines()
        return text if show_full or len(lines) <= 40 else "\n".join(lines[:40] + ["  …"])

    def write(self):
        text = "".join(self.sections)
        for secret, placeholder in self.secrets.items():
            text = text.replace(secret, placeholder)
        OUTPUT.write_text(text)


def record(site):
    r = Recorder(site.url)
    r.heading("Discovery")
    r.call("agents.txt", "GET", "/.well-known/agents.txt")
    r.call("agents.json (first lines)", "GET", "/.well-known/agents.json", show_full=False)

    r.heading("Catalog (no session needed)")
    found = r.call("search", "GET", f"{API}/search?q=celadon&limit=2").json()["data"]["results"]
    r.call("browse a category, cheapest first", "GET", f"{API}/browse?category=vases&sort=price_asc&limit=2")
    item_id = found[0]["id"]
    r.call("detail", "GET", f"{API}/detail/{item_id}")

    r.heading("Sessions")
    created = r.call("create a session", "POST", f"{API}/session",
                     body={"agent_name": "docs-agent", "agent_version": "1.0", "purpose": "API examples"})
    token = created.json()["data"]["session_token"]
    r.redact(token, "<session_token>")
    auth = {"Authorization": f"Bearer {token}"}

    r.heading("Cart")
    r.call("cart.add", "POST", f"{API}/cart/add", body={"item_id": item_id, "quantity": 2}, headers=auth)
    r.call("cart.view", "GET", f"{API}/cart/view", headers=auth)
    r.call("cart.update (quantity 0 removes the line)", "PUT", f"{API}/cart/update",
           body={"item_id": item_id, "quantity": 3}, headers=auth)
    second = found[1]["id"]
    r.call("cart.add a second item", "POST", f"{API}/cart/add", body={"item_id": second}, headers=auth)
    r.call("cart.remove", "DELETE", f"{API}/cart/remove", body={"item_id": second}, headers=auth)

    r.heading("Retrying safely: Idempotency-Key")
    retry = {**auth, "Idempotency-Key": "7d0c6d1e-5b0f-4c33-9f9e-2f4d1d6c8a10"}
    r.call("cart.add with an Idempotency-Key", "POST", f"{API}/cart/add", body={"item_id": second}, headers=retry)
    r.call("the same request again: replayed, not added twice", "POST", f"{API}/cart/add",
           body={"item_id": second}, headers=retry)
    r.call("the same key with another body", "POST", f"{API}/cart/add", body={"item_id": second, "quantity": 2},
           headers=retry)
    r.call("cart.remove it again", "DELETE", f"{API}/cart/remove", body={"item_id": second}, headers=auth)

    r.heading("Checkout: hand the link to a human")
    handoff = r.call("checkout", "POST", f"{API}/checkout", headers=auth).json()["data"]["checkout_url"]
    r.redact(handoff.rstrip("/").rsplit("/", 1)[1], "<handoff_token>")

    r.heading("Contact")
    r.call("contact", "POST", f"{API}/contact",
           body={"name": "Ada", "email": "ada@example.com", "message": "Do you ship to Canada?"})

    r.heading("Errors")
    r.call("missing required parameter", "GET", f"{API}/search")
    r.call("wrong type and enum", "GET", f"{API}/browse?limit=many&sort=cheapest")
    r.call("unknown item", "GET", f"{API}/detail/no-such-thing")
    r.call("no session", "GET", f"{API}/cart/view")
    r.call("not JSON", "POST", f"{API}/cart/add", raw_body="item_id=x",
           headers={**auth, "Content-Type": "application/x-www-form-urlencoded"})
    r.call("quantity above stock or maximum", "POST", f"{API}/cart/add",
           body={"item_id": item_id, "quantity": 500}, headers=auth)
    r.call("empty cart at checkout", "POST", f"{API}/checkout", headers=auth)
    r.call("wrong method", "DELETE", f"{API}/search")
    r.call("unknown endpoint", "GET", f"{API}/teleport")
    r.call("body too large", "POST", f"{API}/contact", body={"message": "x" * 70_000})
    r.call("preflight (CORS)", "OPTIONS", f"{API}/cart/add",
           headers={"Origin": "https://agent.example", "Access-Control-Request-Method": "POST"})

    r.heading("Ending the session")
    r.call("end the session", "DELETE", f"{API}/session", headers=auth)
    r.call("using an ended session", "GET", f"{API}/cart/view", headers=auth)
    for _ in range(5):
        requests.post(f"{site.url}{API}/session", timeout=10)
    r.call("too many live sessions from one address", "POST", f"{API}/session")
    r.write()


def main():
    with tempfile.TemporaryDirectory() as data_dir:
        site = start_site(Path(data_dir), workers=1)
        try:
            site.manage("load_demo_catalog")
            record(site)
        finally:
            site.stop()
    print(f"Wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
