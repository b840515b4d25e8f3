"""Regenerate docs/api.md from a real run: `make docs-api`.

Starts the site under gunicorn on a throwaway database with the demo catalog, sends
every documented request, and writes each request with the response it really got.
"""
import json
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import requests
import simplejson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import start_site  # noqa: E402

API = "/.well-known/agents/api"
OUTPUT = ROOT / "docs" / "api.md"
SHOWN_HEADERS = ("Content-Type", "Allow", "Retry-After", "WWW-Authenticate", "ETag", "Cache-Control",
                 "Idempotent-Replayed")
RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")  # shown where named

INTRO = """# Agent API reference

Every example below was captured from a real run of this site (`make docs-api` regenerates
the page; tokens, ids and times differ on each run).

- **Discovery**: `GET /.well-known/agents.txt` and `/.well-known/agents.json`. Endpoints are
  under `/.well-known/agents/api` by default; staff can move them, so agents read them from
  agents.json.
- **Parameters**: GET sends them in the query string; POST, PUT, PATCH and DELETE a JSON object
  with `Content-Type: application/json`. Unknown parameters are ignored; prices come from the
  shop. Each parameter's rules (type, default, values, bounds, length, format) are configured per
  site, published in every document (`"Search query (1 to 200 characters)"`; OpenAPI and PactSpec
  add a `pattern` excluding NUL) and checked before anything runs: a value outside them is 400
  `invalid_params`, one sentence per parameter in `fields`. A minimum length counts trimmed
  text, which arrives trimmed; `null` is refused; integers stay within ±9007199254740991.
- **Sessions**: `POST /session` returns a `session_token`; send it as
  `Authorization: Bearer <token>` (or `X-Session-Token`, or `X-Agent-Session`). A session ends
  `ttl_seconds` after creation, whatever the activity. The answer says `"audit": true` when its
  calls are recorded in a signed trail, and gives an `inspect_url`, a page for the agent's
  developer ([audit.md](audit.md#watching-a-session-the-inspector)).
- **Retries**: a POST capability may carry an `Idempotency-Key` (1 to 255 visible ASCII
  characters, no commas, e.g. a UUID). The same request with the same key runs once: the stored
  answer comes back with `Idempotent-Replayed: true`. Keys last 24 hours, per session (else per
  address). Session create, GET, PUT and DELETE ignore the header. Answers asking for a retry
  (409, 429, 5xx) are not kept.
- **Request size**: on every agent path the path and query string may be at most 4096 bytes
  (`MAX_URL_BYTES`), the header block at most 8192 bytes (`MAX_HEADER_BYTES`), a body 64 KiB
  (`MAX_BODY_BYTES`): past them 414 `uri_too_long`, 431 `headers_too_large` or 413
  `payload_too_large`; the URL and header checks come before the rate limit counts the call.
  Past gunicorn's larger limits gunicorn answers, in the envelope too
  ([deploy.md](deploy.md#request-size-limits)).
- **Rate limit**: `requests_per_minute` per session, else per client address, in fixed
  60-second windows. Every counted answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`
  and `X-RateLimit-Reset` (a Unix time); past the limit 429 `rate_limited` with `Retry-After` in
  seconds. A capability may also have its own `calls_per_hour` per address (`contact`: 10).
- **Envelope**: every answer is `{"ok": true, "data": …}` or `{"ok": false, "error":
  "<sentence>", "code": "<machine_code>", "fields"?: {…}}`, as
  `application/json; charset=utf-8`, with `X-Request-ID`. Money is a JSON number with its
  currency's ISO 4217 decimals, beside a `currency`. Every answer of the site carries
  `Link: </.well-known/agents.json>; rel="agents"; type="application/json"`.

## Error codes

Agents branch on `code` and `status` and may show `error` to a human. PactSpec answers the same
envelope; A2A a JSON-RPC error carrying the code; UCP and ACP their error shapes ([interop.md](interop.md)). *(shop)* codes come
from this shop's provider (`acme/agents.py`, `cart/services.py`); another shop may add its own.

| status | code | when | what the agent should do |
|---|---|---|---|
| 308 | `https_required` | plain HTTP to an agent path of an HTTPS site | send the same request to `Location` |
| 400 | `invalid_params` | a parameter is missing, of the wrong type or outside its rules; `fields` (ACP: `param`) names each | fix the parameters named in `fields` |
| 400 | `invalid_json` | the body is not one JSON object (or has NaN, a key twice, nesting past 32 levels, a lone surrogate) | send one JSON object |
| 400 | `invalid_request` | a malformed request: a bad `Content-Length`, an unexpected `Host`, too many parameters, HTTP gunicorn cannot read; a provider's `bad_request()` | send a well-formed request to the site's host |
| 400 | `invalid_idempotency_key` | the `Idempotency-Key` is not 1 to 255 visible ASCII characters without commas | send a UUID, or no key |
| 400 | `unknown_skill` | a PactSpec or A2A call names no skill of this site | use a skill id the documents list |
| 400 | `unknown_tool` | an MCP `tools/call` names no tool of this site | list the tools again |
| 400 | `unsupported_protocol_version` | an MCP `MCP-Protocol-Version` other than 2024-11-05, 2025-06-18 or 2025-11-25 | send the revision `initialize` answered |
| 400 | `invalid_quantity` | *(shop)* `quantity` is not a whole number of at least 1 (0 for `cart.update`) | send a positive whole number |
| 400 | `quantity_above_maximum` | *(shop)* the line would hold more than a cart may (20 here) | lower the quantity to the maximum given |
| 400 | `insufficient_stock` | *(shop)* fewer in stock than asked for, or than the cart holds at checkout | lower the quantity, or remove the item |
| 400 | `currency_mismatch` | *(shop)* the item is priced in another currency than the cart | choose another item |
| 400 | `variant_required` | *(shop)* `cart.add` of an item sold only as one of its variants | add one of the `variants` that `detail` lists |
| 400 | `version_unsupported` | *(UCP)* the `UCP-Agent` header names a newer protocol version than this business | send the profile's version |
| 400 | `invalid_profile` | *(UCP)* the profile `UCP-Agent` names is private, slow, too large or not a profile | serve it publicly, small and fast |
| 400 | `checkout_incomplete` | *(UCP, ACP)* complete without line items, or without the shipping address and option chosen | update the checkout first |
| 400 | `missing_api_version` | *(ACP)* no `API-Version` | send one of `supported_versions` |
| 400 | `unsupported_api_version` | *(ACP)* an `API-Version` not served | send one of `supported_versions` |
| 400 | `idempotency_key_required` | *(ACP)* a POST without `Idempotency-Key` | send one |
| 400 | `missing` | *(ACP)* a message: address or shipping still missing | update the checkout |
| 400 | `requires_3ds` | *(ACP)* complete without the awaited `authentication_result` | send it |
| 402 | `payment_declined` | *(UCP, ACP)* the payment handler declined the instrument | pay with another instrument |
| 401 | `session_required` | the capability needs a session and no token was sent | create a session and send its token |
| 401 | `session_invalid` | the token is no session's, or `Authorization` is not `Bearer <token>` | create a new session |
| 401 | `session_expired` | the session's `ttl_seconds` have passed | create a new session |
| 401 | `session_ended` | the session was ended (DELETE, or a key rotation) | create a new session |
| 401 | `api_key_required` | *(ACP)* no bearer key | send the platform's key |
| 401 | `invalid_api_key` | *(ACP)* an unknown, revoked or expired key | ask the shop for one |
| 401 | `invalid_signature` | *(ACP)* a bad `Signature` or stale `Timestamp` | sign again |
| 403 | `forbidden` | a permission class the shop added to `PERMISSION_CLASSES` refused the call | ask the shop; the sentence is its own |
| 403 | `wrong_simulation_secret` | *(UCP, tests)* `/testing/simulate-shipping/{id}` without the site's `Simulation-Secret` | send the configured secret |
| 403 | `forbidden_origin` | an MCP request from a browser page of another site | call from outside the browser, or the site's origin |
| 404 | `not_found` | no capability at this path, or the shop found nothing for the call | read endpoints from agents.json |
| 404 | `unknown_item` | no item with this id is for sale | find ids with `search` or `browse` |
| 404 | `unknown_category` | *(shop)* `browse` of a category that does not exist | use a category the sentence lists |
| 404 | `unknown_order` | *(shop)* `order.status` of an order this session does not have | list the session's orders |
| 404 | `item_not_in_cart` | *(shop)* `cart.update` or `cart.remove` of an item not in the cart | read the cart with `cart.view` |
| 404 | `unknown_session` | no audit trail for this session id and token, or no session for an inspector secret | send the session's own token |
| 404 | `method_not_found` | an MCP method other than `initialize`, `ping`, `tools/list`, `tools/call` | list and call tools |
| 405 | `method_not_allowed` | the endpoint does not take this method; `Allow` lists those it does | use a method from `Allow` |
| 405 | `cancel_not_allowed` | *(ACP)* cancel of a completed or canceled session | none needed |
| 406 | `not_acceptable` | an MCP POST whose `Accept` takes no JSON | send `Accept: application/json, text/event-stream` |
| 409 | `cart_empty` | *(shop)* `checkout` with nothing in the cart | add an item first |
| 409 | `cart_not_open` | *(shop)* the cart was checked out by another call a moment ago | send the request again |
| 409 | `checkout_closed` | *(UCP)* a change to a completed, canceled or handed-off checkout | start a new checkout |
| 409 | `idempotency_in_flight` | a request with this `Idempotency-Key` is still running | wait `Retry-After`, then retry with the same key |
| 409 | `idempotency_outcome_unknown` | the request with this key changed something but its answer was lost | do not resend: read `cart.view` or `order.status` |
| 411 | `length_required` | a body sent chunked, without `Content-Length` | send the body with its length |
| 412 | `precondition_failed` | a document asked for with an `If-Match` naming another version | GET the document again |
| 413 | `payload_too_large` | the body is over `MAX_BODY_BYTES` (64 KiB) | send a smaller body |
| 414 | `uri_too_long` | the path and query are over `MAX_URL_BYTES` (4096 bytes) | send shorter parameters, or POST them |
| 415 | `unsupported_media_type` | a body that is not `application/json` | send JSON with its `Content-Type` |
| 422 | `idempotency_conflict` | this `Idempotency-Key` was used for another body, endpoint or capability | use a new key |
| 422 | `invalid_order_update` | *(UCP)* an order's events or adjustments not in the spec's shape | fix the field named in `path` |
| 425 | `session_live` | the audit trail of a session that has not ended yet | end the session, then fetch the trail |
| 429 | `rate_limited` | over `requests_per_minute`, or a capability's `calls_per_hour` | wait `Retry-After` seconds |
| 429 | `too_many_sessions` | this address has `max_sessions` live sessions, none idle 5 minutes (one that is ends) | end a session you no longer use, or wait `Retry-After` seconds |
| 429 | `too_many_checkouts` | *(ACP)* the platform's `max_open_checkouts` are open | close some |
| 431 | `headers_too_large` | the header block is over `MAX_HEADER_BYTES` (8192 bytes) | send only the headers the API reads |
| 500 | `internal_error` | an unexpected failure on the shop's side | retry with backoff; quote `X-Request-ID` |
| 501 | `not_implemented` | the capability has no handler here, or the provider does not implement it | do not retry; use another capability |
| 503 | `backend_unavailable` | the shop's database or rate-limit cache is down | retry after `Retry-After`, with the same key |

## Where this profile differs from the protocol's documents, and why

The protocol's texts come from two branches of its repository that disagree in places
(`agents-protocol`, source of seed 000, and `review-repo`, of seeds 001 and 002). The agents.json
schema used is seed 000's, of branch claude/agents-protocol-jVQe1, commit
3dce0f80da0ab2794c543bf3947679c3a6fec12f (`agents_protocol/schemas/README.md`).
`tests/test_conformance.py` replays every wire assertion of those texts over HTTP and asserts
each entry below.

- **Session create status.** `201 Created` (review-repo: `200`).
- **cart.add status.** `200` (the status tables: `201`).
- **search answer.** `data` is `{results, total, page, limit}` (agents-protocol's object plus
  `limit`), not review-repo's bare array: paging needs the total.
- **Session token format.** 32 random bytes in base64url, not a UUID.
- **Session TTL.** `session.ttl_seconds`, 1800 s by default (seed 001: 3600).
- **Session end answer.** `{ended: true, session_id, ended_at, audit_url}`, without
  agents-protocol's echo of the token.
- **Audit URL.** `GET /.well-known/agents/api/audit/:session_id` takes the public `session_id`
  with the session's token as `Authorization: Bearer` (both branches put the token in the path,
  where logs keep it).
- **Audit artifact format.** `agents-protocol-audit/1` ([audit.md](audit.md)).
- **Stale token without a session.** An expired, ended or unknown token sent to a capability
  that needs no session is answered as a call without one.
- **CORS.** A preflight answers `204` naming the methods of the path asked about and every
  header the API reads, not a fixed list.
- **cart.add name and price.** Accepted and ignored: a line costs the shop's price.
- **checkout answer.** `{checkout_url, human_handoff: true, expires_at, message, order_id}`.
- **schema_version.** `"0.1.0"`, as seed 000 and its schema say.
- **agents.json keys.** Seed 000's shape, which its schema closes.
- **agents.txt fields.** Seed 002's (review-repo): `Site`, one `Allow` line per capability,
  `Agents-JSON`, `Flow`, `Rate-Limit: N/minute`, `Session-TTL: Ns`, `Audit-Endpoint`.
- **Endpoint layout.** Seed 001's (`/cart/add` POST, `/cart/view` GET …); admin can switch to
  agents-protocol's one `/cart` path.
- **Additions.** An agent may ignore `code`, `fields`, `session_id`, `ttl_seconds`,
  `inspect_url`, `notices` (changes the agent did not make), `X-RateLimit-*`, `X-Request-ID`,
  `Idempotency-Key`, and more statuses than the seeds list.
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

    def call(self, title, method, path, *, body=None, headers=None, show=()):
        """Send the request and record it with its answer; `show` names headers shown besides SHOWN_HEADERS."""
        headers = dict(headers or {})
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body)
        response = requests.request(method, self.base_url + path, data=data, headers=headers, timeout=10)
        self.sections.append(self._example(title, method, path, headers, data, response, show))
        return response

    def _example(self, title, method, path, headers, data, response, show=()):
        request_lines = [f"{method} {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in headers.items()]
        if data:
            request_lines += ["", data]
        response_lines = [f"HTTP/1.1 {response.status_code} {response.reason}"]
        response_lines += [f"{k}: {response.headers[k]}" for k in (*SHOWN_HEADERS, *show) if k in response.headers]
        response_lines += ["", self._body(response)]
        return (f"\n### {title}\n\n```http\n" + "\n".join(request_lines) + "\n```\n\n```http\n"
                + "\n".join(response_lines).rstrip() + "\n```\n")

    @staticmethod
    def _body(response):
        if not response.content:
            return ""
        if "json" not in response.headers.get("Content-Type", ""):
            return response.text
        # simplejson keeps money as written on the wire (56.00), json would print 56.0.
        return simplejson.dumps(simplejson.loads(response.text, use_decimal=True), indent=2,
                                ensure_ascii=False, use_decimal=True)

    def write(self):
        text = "".join(self.sections)
        for secret, placeholder in self.secrets.items():
            text = text.replace(secret, placeholder)
        OUTPUT.write_text(text)


def record(site):
    r = Recorder(site.url)
    r.heading("Discovery")
    r.call("agents.txt", "GET", "/.well-known/agents.txt", show=("Link",))  # on every answer: shown once

    r.heading("Catalog (no session needed)")
    found = r.call("search", "GET", f"{API}/search?q=celadon&limit=2").json()["data"]["results"]
    item_id = found[0]["id"]
    r.call("detail", "GET", f"{API}/detail/{item_id}")

    r.heading("Sessions")
    created = r.call("create a session", "POST", f"{API}/session",
                     body={"agent_name": "docs-agent", "agent_version": "1.0", "purpose": "API examples"})
    token = created.json()["data"]["session_token"]
    r.redact(token, "<session_token>")
    inspector = urlsplit(created.json()["data"]["inspect_url"]).path
    r.redact(inspector.rsplit("/", 1)[1], "<inspect_secret>")
    auth = {"Authorization": f"Bearer {token}"}

    r.heading("Cart")
    r.call("cart.add", "POST", f"{API}/cart/add", body={"item_id": item_id, "quantity": 2}, headers=auth)
    r.call("cart.view", "GET", f"{API}/cart/view", headers=auth)
    second = found[1]["id"]

    r.heading("Retrying safely: Idempotency-Key")
    retry = {**auth, "Idempotency-Key": "7d0c6d1e-5b0f-4c33-9f9e-2f4d1d6c8a10"}
    r.call("cart.add with an Idempotency-Key", "POST", f"{API}/cart/add", body={"item_id": second}, headers=retry)
    r.call("the same request again: replayed, not added twice", "POST", f"{API}/cart/add",
           body={"item_id": second}, headers=retry)

    r.heading("Checkout: hand the link to a human")
    handoff = r.call("checkout", "POST", f"{API}/checkout", headers=auth).json()["data"]["checkout_url"]
    r.redact(handoff.rstrip("/").rsplit("/", 1)[1], "<handoff_token>")

    r.heading("Contact")
    r.call("contact", "POST", f"{API}/contact",
           body={"name": "Ada", "email": "ada@example.com", "message": "Do you ship to Canada?"})

    r.heading("Errors")
    r.call("missing required parameter", "GET", f"{API}/search")
    r.call("unknown item", "GET", f"{API}/detail/no-such-thing")
    r.call("no session", "GET", f"{API}/cart/view")
    r.call("quantity above its maximum", "POST", f"{API}/cart/add",
           body={"item_id": item_id, "quantity": 500}, headers=auth)
    r.call("a product sold in variants, added by its own id", "POST", f"{API}/cart/add",
           body={"item_id": "round-planter"}, headers=auth)
    r.call("empty cart at checkout", "POST", f"{API}/checkout", headers=auth)

    r.heading("Ending the session")
    r.call("end the session", "DELETE", f"{API}/session", headers=auth)

    r.heading("Rate limit")
    search = f"{API}/search?q=celadon&limit=1"
    for _ in range(200):  # use up this address's budget for the current window
        if requests.get(site.url + search, timeout=10).status_code == 429:
            break
    over = r.call("past the limit", "GET", search, show=RATE_HEADERS)
    assert over.status_code == 429, "the window reset just then: run make docs-api again"
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
