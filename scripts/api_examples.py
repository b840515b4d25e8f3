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

Every example below was captured from a real run of this site (`make docs-api`
regenerates the page; tokens, ids and times differ on each run).

- Discovery: `GET /.well-known/agents.txt`, `GET /.well-known/agents.json`.
- All API endpoints are origin-relative paths under `/.well-known/agents/api` by default;
  staff can move them in admin, so agents should read them from agents.json.
- Parameters: GET sends them in the query string; POST, PUT, PATCH and DELETE send a JSON
  object body with `Content-Type: application/json` (DELETE also accepts the query string).
  Unknown parameters are ignored. `name`/`price` sent to `cart.add` are ignored: prices
  always come from the shop.
- Parameter rules: a parameter's type, whether it is required, its default, its allowed
  values, its bounds (`minimum`/`maximum`), its length and its format (email, uri,
  date-time) are configured per site and checked before anything runs. OpenAPI and PactSpec
  publish them as JSON Schema keywords (`minimum`, `maximum`, `minLength`, `maxLength`,
  `format`, and a `pattern` saying that trimmed text must still be long enough); agents.json, whose schema has no such keys, states them in each parameter's
  description (`"Search query (1 to 200 characters)"`). Text with a minimum length is
  trimmed of surrounding whitespace first (`"   "` is not a search query) and arrives
  trimmed; whitespace is what `\\s` matches in ECMA-262, the pattern's dialect. A value
  outside its rules is 400 `invalid_params`, one sentence per parameter in
  `fields`: "Must be text of 1 to 200 characters.", "Must be an integer from 1 to 100.",
  "Must be a valid email address.". By default: `q`, ids and `name` 1 to 200 characters,
  `page` 1 to 10000, `limit` 1 to 100, `quantity` 1 to 1000 for `cart.add` and 0 to 1000 for
  `cart.update` (the shop's own cart maximum answers `quantity_above_maximum`), `order_id` at most
  100 characters, `email` an email address of 3 to 320 characters, `message` 1 to 5000.
- Sessions: `POST /session` returns a `session_token`; send it as
  `Authorization: Bearer <token>` (or `X-Session-Token`, or `X-Agent-Session`). Sessions end
  `ttl_seconds` after creation, whatever the activity. The answer says `"audit": true` when
  the session's calls are recorded in a signed audit trail (`false` with audit off), and
  gives an `inspect_url`: a page for the agent's developer (open it in a browser) that shows
  the session's calls as they happen, its cart, order and rate-limit headroom, and once the
  session ends verifies and downloads its signed trail. Its secret is not the session token
  and grants nothing else ([audit.md](audit.md#watching-a-session-the-inspector)).
- Retries: a POST capability (`cart.add`, `checkout`, `contact`, any POST capability) may
  carry an `Idempotency-Key` header (1 to 255 visible ASCII characters, no commas, e.g. a UUID). Sending
  the same request again with the same key runs it once: the stored answer comes back with
  `Idempotent-Replayed: true`. The same key with a different body (or endpoint) is 422
  `idempotency_conflict`; while the first request is still running, 409
  `idempotency_in_flight` with `Retry-After`; if it changed something but its answer was lost
  (its worker stopped, or it failed while answering), 409 `idempotency_outcome_unknown`: it is
  never run twice. Keys are kept 24 hours, per session (per client
  address for calls without a session), so no agent can replay another's. Session create
  ignores the header: its answer holds the session's token, which a replay would hand to any
  client behind the same address sending the same key and body (agents sharing a NAT or a
  cloud's egress address, with keys derived from the request); a retried create makes a second
  session, which ends with its TTL.
  Answers that ask for a retry (409, 429, 5xx) are not kept: retry them with the same key.
  GET, PUT and DELETE ignore the header (they are idempotent already).
- Request size: on every agent path (the API, the discovery documents, A2A, PactSpec, MCP) the
  path and query string may be at most 4096 bytes, percent-encoded (`MAX_URL_BYTES`), and the
  header block at most 8192 bytes, each field counted as `Name: value` and CRLF
  (`MAX_HEADER_BYTES`); a request body at most 64 KiB (`MAX_BODY_BYTES`). Past them the answer
  is 414 `uri_too_long`, 431 `headers_too_large` or 413 `payload_too_large`, in the envelope.
  The URL and header checks come first, before the call is read (A2A answers them in the
  envelope too) and before the rate limit counts it. This site's gunicorn lets more through
  (an 8190-byte request line, 256 header fields of up to 16384 bytes each); a request past
  those, or one it cannot read as HTTP/1.1, gunicorn answers itself, in the envelope too (414
  `uri_too_long`, 431 `headers_too_large`, else `invalid_request` with the status HTTP gives:
  400, 501 for a transfer coding it does not know, 408 for a body that stops arriving for 10
  seconds), and closes the connection.
- Rate limit: `requests_per_minute` per session, else per client address, in fixed 60-second
  windows. Every counted answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
  `X-RateLimit-Reset`, the Unix time (in seconds) at which the window resets. Past the limit:
  429 `rate_limited` with `Retry-After`, the seconds to wait (HTTP's delta-seconds, at least
  1), which is `X-RateLimit-Reset` minus the second of the answer. A capability may also take
  at most so many calls an hour from one client address, with or without a session (`contact`:
  10 by default; llms.txt and OpenAPI say which): past that, 429 `rate_limited` with its own
  `Retry-After`, while the `X-RateLimit-*` headers keep counting the minute's limit.
- Every response is `{"ok": true, "data": …}` or
  `{"ok": false, "error": "<sentence>", "code": "<machine_code>", "fields"?: {…}}`, sent as
  `Content-Type: application/json; charset=utf-8` (A2A's and PactSpec's answers and the JSON
  documents too). Every answer in the envelope carries `X-Request-ID` (the discovery documents
  and the bodiless answer to a CORS preflight do not). Money is a JSON number with its currency's
  ISO 4217 decimals (two for USD, none for JPY) plus a `currency`.
- Every response of the site, API or not (pages, documents, errors, redirects, static files),
  carries `Link: </.well-known/agents.json>; rel="agents"; type="application/json"` once.

## Error codes

Every refusal names one of these codes; agents should branch on `code` and `status`, and
show `error` (one sentence saying what went wrong and what to do) to a human if needed.
PactSpec skills answer the same envelope with the same status. A2A answers a JSON-RPC error
whose `data` holds a google.rpc ErrorInfo with the code in `metadata.code` (and in capitals
as `reason`), over HTTP 200 except for 401 and 429. Codes marked *(shop)* come from this
shop's provider (`acme/agents.py`, `cart/services.py`); another shop's provider may add its own.

| status | code | when | what the agent should do |
|---|---|---|---|
| 308 | `https_required` | plain HTTP to an agent path of a site that redirects to HTTPS (`Location` holds the same URL over HTTPS) | send the same request to `Location`; use the https URLs agents.json lists |
| 400 | `invalid_params` | a parameter is missing, of the wrong type, out of its bounds or not one of its values; `fields` names each one (also session fields that are too long, and a PactSpec or A2A input that is not an object) | fix the parameters named in `fields` (agents.json describes each) and send again |
| 400 | `invalid_json` | the body is not valid JSON (or has NaN or Infinity, a key twice, nesting deeper than 32 levels, a string escaping half of a surrogate pair such as `"\\ud800"`), or is not a JSON object | send one JSON object of parameters |
| 400 | `invalid_request` | the request itself is malformed: a `Content-Length` that is not a number, an unexpected `Host`, too many parameters, or no HTTP/1.1 that gunicorn can read (gunicorn answers that itself, with the status HTTP gives: 501 for a transfer coding it does not know, 417 for an `Expect` it does not meet); also what a provider's `bad_request()` answers without a code of its own | send a well-formed request to the site's own host |
| 400 | `invalid_idempotency_key` | the `Idempotency-Key` header is not 1 to 255 visible ASCII characters without commas | send a UUID as the key, or no key |
| 400 | `unknown_skill` | a PactSpec call (`{"skill", "input"}`) or an A2A message names no skill of this site (A2A: JSON-RPC -32602) | use a skill id of `/.well-known/pactspec.json` or `/.well-known/agent-card.json` |
| 400 | `unknown_tool` | an MCP `tools/call` names no tool of this site (JSON-RPC -32602) | list the tools again with `tools/list` |
| 400 | `unsupported_protocol_version` | an MCP request's `MCP-Protocol-Version` header names no revision this server speaks (2024-11-05 to 2025-11-25) | send the revision `initialize` answered |
| 400 | `invalid_quantity` | *(shop)* `quantity` is not a whole number of at least 1 (at least 0 for `cart.update`); with the default rules `invalid_params` refuses such a quantity first, so this comes only where a site dropped its minimum | send a positive whole number |
| 400 | `quantity_above_maximum` | *(shop)* the line would hold more of one item than a cart may (20 here) | lower the quantity to the maximum the sentence gives |
| 400 | `insufficient_stock` | *(shop)* the shop has fewer in stock than asked for, or than the cart holds at checkout | lower the quantity to what the sentence says is available (`cart.update`), or `cart.remove` an item none of which is left, then try again |
| 400 | `cart_empty` | *(shop)* `checkout` with nothing in the cart | add at least one item first |
| 400 | `currency_mismatch` | *(shop)* the item is priced in another currency than the cart (the shop sells in one currency; only items stored before that rule can differ) | choose another item: this one cannot be bought here |
| 400 | `variant_required` | *(shop)* `cart.add` of an item that is sold only as one of its variants (its `detail` lists them) | call `detail` and add one of its `variants` by its id |
| 401 | `session_required` | the capability needs a session and no token was sent (also the audit endpoint without the session's token) | create a session (POST the session endpoint) and send its token as `Authorization: Bearer <token>` |
| 401 | `session_invalid` | the token is no session's, or the `Authorization` header is not `Bearer <token>` | create a new session, or send its token after `Bearer ` |
| 401 | `session_expired` | the session's `ttl_seconds` have passed (a hard deadline from creation) | create a new session; the old one's audit trail can be fetched |
| 401 | `session_ended` | the session was ended (DELETE, or the signing key was rotated) | create a new session |
| 403 | `forbidden_origin` | an MCP request from a browser page of another site: its `Origin` is neither the site's nor the site profile URL's (against DNS rebinding) | call from a client outside the browser, or from the site's own origin |
| 404 | `not_found` | no capability is served at this path (or a PactSpec skill URL names no skill), or the shop found nothing for what the call names | read the endpoints from agents.json; do not guess paths; check the ids the call sends |
| 404 | `unknown_item` | no item with this id is for sale (`detail`, the cart capabilities) | find ids with `search` or `browse` |
| 404 | `unknown_category` | *(shop)* `browse` with a category that does not exist | use one of the categories the sentence lists, or none |
| 404 | `unknown_order` | *(shop)* `order.status` with an order id this session does not have | call `order.status` without `order_id` to list the session's orders |
| 404 | `item_not_in_cart` | *(shop)* `cart.update` or `cart.remove` of an item the cart does not hold | read the cart with `cart.view` |
| 404 | `unknown_session` | no audit trail for this session id and token (another session's token, audit off, or removed after the retention period); at an inspector URL, no session has its secret | send the `session_id` with that session's own token; use the `inspect_url` session create gave |
| 404 | `method_not_found` | an MCP request of a JSON-RPC method this server does not serve: only `initialize`, `ping`, `tools/list` and `tools/call` (JSON-RPC -32601) | list and call tools |
| 405 | `method_not_allowed` | the endpoint does not take this method (documents are read-only; A2A and PactSpec take POST); the `Allow` header lists the methods | use a method from `Allow` (agents.json gives each capability's) |
| 406 | `not_acceptable` | an MCP POST whose `Accept` takes no JSON | send `Accept: application/json, text/event-stream` |
| 409 | `cart_not_open` | *(shop)* the cart was checked out by another call a moment ago | send the request again: it uses a new cart |
| 409 | `idempotency_in_flight` | a request with this `Idempotency-Key` is still running (`Retry-After`) | wait `Retry-After` seconds and send it again with the same key |
| 409 | `idempotency_outcome_unknown` | the request with this `Idempotency-Key` changed something, but its answer was lost (its worker stopped, or it failed while answering) | do not send it again: read the result (`cart.view`, `order.status`) |
| 411 | `length_required` | a body sent chunked, without `Content-Length` (it would be read as empty) | send the body with its `Content-Length` |
| 412 | `precondition_failed` | a document asked for with an `If-Match` naming another version | GET the document again for its current `ETag` |
| 413 | `payload_too_large` | the body is over `MAX_BODY_BYTES` (64 KiB by default) | send a smaller body |
| 414 | `uri_too_long` | the path and query string are over `MAX_URL_BYTES` (4096 bytes by default), on any agent path | send shorter parameters; a POST capability takes them in its JSON body |
| 415 | `unsupported_media_type` | a body with a `Content-Type` other than `application/json` (or `application/*+json`) | send the parameters as JSON with `Content-Type: application/json` |
| 422 | `idempotency_conflict` | this `Idempotency-Key` was used for a different body, endpoint or capability | use a new key for a new request |
| 425 | `session_live` | the audit trail of a session that has not ended yet, from the audit endpoint or the inspector (`Retry-After`: until it expires) | end the session (DELETE), then fetch the trail |
| 429 | `rate_limited` | more than `requests_per_minute` calls in the minute, per session or else per address (`Retry-After`, `X-RateLimit-*`), or more calls of one capability in the hour than its own limit (`contact`: 10) | wait `Retry-After` seconds (until `X-RateLimit-Reset`, a Unix time, for the minute's limit); keep under `X-RateLimit-Remaining` |
| 429 | `too_many_sessions` | this address already has `max_sessions` live sessions (`Retry-After`: until the first expires) | end a session you no longer use (DELETE), or wait |
| 431 | `headers_too_large` | the header fields together are over `MAX_HEADER_BYTES` (8192 bytes by default), on any agent path | send only the headers the API reads: the session token, `Content-Type` and `Idempotency-Key` |
| 500 | `internal_error` | an unexpected failure on the shop's side | retry with backoff; quote the `X-Request-ID` (when the answer has one) when reporting it |
| 501 | `not_implemented` | the capability is published but has no handler on this site, or the shop's provider does not implement it | do not retry; use another capability |
| 503 | `backend_unavailable` | the shop's database or rate-limit cache is down (`Retry-After`) | retry after `Retry-After` seconds, with the same `Idempotency-Key` for a POST |

## Where this profile differs from the protocol's documents, and why

The protocol's own spec texts come from two branches of its public repository that disagree in
places (`agents-protocol`, where seed 000 and the canonical schema come from, and `review-repo`,
where seeds 001 and 002 come from). Where they agree, this site does what they say; where they
disagree, or where this site does otherwise, the entries below say what it does and why.
`tests/test_conformance.py` replays every wire assertion of those texts over HTTP, quoting the
sentence each test comes from, and asserts each entry below.

- **Session create status.** `POST /session` answers `201 Created`, as the agents-protocol
  branch does (its status table: "Resource created (e.g., session, cart item)"); the review-repo
  branch answers `200`. The POST creates a resource, a session, and 201 is HTTP's status for that.
- **cart.add status.** `cart.add` answers `200`, whether it makes a new line or adds to one.
  Both branches' status tables give `201` for a cart item, while the review-repo branch's own
  flow and session diagram (and the reference SDK) answer `200`. Adding an item already in the
  cart changes its line rather than creating one, so one status serves both cases.
- **search answer.** `data` is `{results, total, page, limit}`, the agents-protocol branch's
  object (plus `limit`), not the review-repo branch's bare array: an agent paging through
  results needs the total and the page, as `browse` gives them.
- **Session token format.** 43 characters: 32 random bytes from `secrets`, base64url (the
  agents-protocol branch asks for at least 32 cryptographically random characters), not a UUID
  (review-repo), whose 122 random bits are fewer. Only its SHA-256 is stored.
- **Session TTL.** `session.ttl_seconds` (as both agents-json.md texts and the canonical schema
  name it; the agents-protocol session.md says `session.ttl`), 1800 s by default as in seeds
  000 and 002 and the agents-protocol branch; the review-repo branch and seed 001 say 3600 s.
- **Session end answer.** `DELETE /session` answers `{ended: true, session_id, ended_at,
  audit_url}`: the review-repo branch's `ended: true` with the agents-protocol branch's
  `ended_at` and artifact URL, but not that branch's echo of `session_token`, and `audit_url`
  (absolute, naming the public `session_id`; `null` with audit off, or for a session made while
  it was off) instead of
  `audit_artifact_url` (naming the token). Session tokens "MUST be treated as secrets": this
  site never writes one back or into a URL.
- **Audit URL.** `GET /.well-known/agents/api/audit/:session_id` takes the public `session_id`
  of the create answer, with that session's token as `Authorization: Bearer` (401 without it,
  404 with another session's); both branches put the token itself in the path, and the
  agents-protocol branch's agents.json default (`/.well-known/agents/api/audit`) has no
  `:session_id`. A token in a URL ends up in access logs, proxies and histories; an id alone
  lets nobody read a trail.
- **Audit artifact format.** `agents-protocol-audit/1` ([audit.md](audit.md)): the
  agents-protocol branch's event fields (`event_id`, `timestamp`, `capability`, `method`,
  `params`, `policy_result`, `response_status`, `prev_hash`) plus `seq`, `path` and
  `event_hash`, one event per call, opened by `session.create` and closed by `session.end`; not
  the review-repo branch's RER envelope with `ToolCalled`/`ToolReturned` pairs. `policy_result`
  is `allow` or `deny:<code>` (the refusal the agent received: the rule that matched, as the
  agents-protocol branch has it), `allow:replayed` or `allow:ended:<reason>`. The agent's name, version and purpose are the first
  event's params, not a top-level `agent` object: in the chain they are covered by the
  signature, which signs `root_hash`, computed over the events only. For the same reason the
  first event's params name the session (`session_id`) and the site (`site`), and the last's its
  end (`reason`); the verifier checks the artifact's `session_id`, `site` and `end_reason` against
  them. `session_id` is the public id, `site` the site's URL (the configured one, else the origin
  the session was created on), as both branches show it; `format`, `end_reason`, `algorithm`, `canonicalization` and
  `key_id` say how to verify it (events are hashed as RFC 8785 JSON: the branch's "serialize",
  made exact).
- **Stale token without a session.** An expired, ended or unknown token sent to a capability
  that needs no session (`search`, `browse`, `detail`, `contact`) is answered as a call without
  a session (counted per address); session-required capabilities and `DELETE /session` answer
  it `401`. Both branches say every request with an expired token returns 401, but those
  capabilities "do not require the header": a stale token does not stop an agent from reading
  the catalog.
- **CORS.** `Access-Control-Allow-Origin: *` and `Access-Control-Expose-Headers` on every
  answer. A preflight answers `204` with `Access-Control-Allow-Methods` naming the methods of
  the path asked about (and `OPTIONS`), not the documents' fixed `GET, POST, PUT, PATCH, DELETE,
  OPTIONS`, and `Access-Control-Allow-Headers` naming every header the API reads (the three
  token headers, `Content-Type`, `Idempotency-Key` …, the transports' `A2A-Version`,
  `Mcp-Session-Id` and `MCP-Protocol-Version`, and `User-Agent`, which the interaction API
  recommends and a browser that lets a script set it asks a preflight for). Browsers read the Allow-* fields only
  from a preflight, so only preflights carry them, and a browser agent learns that a method is
  wrong before sending it.
- **cart.add name and price.** `name` and `price` sent to `cart.add` (inputs in the review-repo
  branch and seed 001) are accepted and ignored: a line costs the shop's price, whatever the
  agent says.
- **checkout answer.** `{checkout_url, human_handoff: true, expires_at, message, order_id}`: the
  review-repo branch's (and seed 001's) `checkout_url` and `human_handoff` with the
  agents-protocol branch's `expires_at` and `message`, not that branch's `handoff_url`.
- **schema_version.** `"0.1.0"`, semver, as seed 000, the agents-protocol branch and the
  canonical schema say; the review-repo branch's example says `"1.0"`.
- **agents.json keys.** Seed 000's shape, which the canonical schema closes (no other keys):
  `flows` (review-repo), `docs_url`, `rate_limit.max_sessions` and `audit.public_key`
  (agents-protocol), `rate_limit.requests_per_minute` (not the agents-protocol interaction
  API's `max_requests_per_minute`), no `audit.description` (review-repo).
- **agents.txt fields.** Seed 002's (the review-repo branch): `Site`, one `Allow` line per
  capability, `Agents-JSON`, `Flow` and `Flow-Description`, `Rate-Limit: N/minute`,
  `Session-TTL: Ns`, `Audit-Endpoint` with `:session_id`; not the agents-protocol branch's
  `Name`, comma-separated `Capabilities`, `Capabilities-URL`, `Agent-API`, `Session-Endpoint`,
  `Docs` and bare numbers.
- **Endpoint layout.** Seed 001's table (the review-repo branch): `/cart/add` POST, `/cart/view`
  GET, `/cart/update` PUT, `/cart/remove` DELETE, `/detail/:id` (which takes `?id=` too); not
  the agents-protocol branch's one `/cart` path by method, with PATCH. Endpoints are data: staff
  can switch to that layout in admin, and agents read them from agents.json.
- **Additions.** What the documents do not have, which an agent may ignore: `code` (and
  `fields`) in every refusal; `session_id`, `ttl_seconds`, `"audit": false` and `inspect_url`
  in the create answer; `notices` in the checkout answer when the shop has something to tell the agent
  (e.g. a price that changed since the item was added to the cart); `X-RateLimit-Limit`, and the three `X-RateLimit-*` headers on every counted answer
  (the review-repo branch asks for them on 429s); `type="application/json"` in the `Link`
  header; `X-Request-ID`; `Idempotency-Key`; the statuses 405, 409, 413, 414, 415, 422, 431,
  501 and 503 of the table above.
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

    def call(self, title, method, path, *, body=None, raw_body=None, headers=None, show_full=True, show=()):
        """Send the request and record it with its answer; `show` names headers shown besides SHOWN_HEADERS."""
        headers = dict(headers or {})
        data = raw_body
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body)
        response = requests.request(method, self.base_url + path, data=data, headers=headers, timeout=10)
        self.sections.append(self._example(title, method, path, headers, data, response, show_full, show))
        return response

    def _example(self, title, method, path, headers, data, response, show_full, show=()):
        request_lines = [f"{method} {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in headers.items()]
        if data:
            request_lines += ["", data if len(data) < 400 else data[:120] + f"… ({len(data)} bytes)"]
        response_lines = [f"HTTP/1.1 {response.status_code} {response.reason}"]
        response_lines += [f"{k}: {response.headers[k]}" for k in (*SHOWN_HEADERS, *show) if k in response.headers]
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
    r.call("agents.txt", "GET", "/.well-known/agents.txt", show=("Link",))  # on every answer: shown once
    r.call("agents.json (first lines)", "GET", "/.well-known/agents.json", show_full=False)

    r.heading("Catalog (no session needed)")
    found = r.call("search", "GET", f"{API}/search?q=celadon&limit=2").json()["data"]["results"]
    r.call("browse a category, cheapest first", "GET", f"{API}/browse?category=vases&sort=price_asc&limit=2")
    item_id = found[0]["id"]
    r.call("detail", "GET", f"{API}/detail/{item_id}")
    r.call("detail of a product sold in variants (cart.add takes a variant's id; its price, stock and in_stock "
           "are what its active variants offer: the cheapest in stock, all of them together)", "GET",
           f"{API}/detail/round-planter")

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

    r.heading("Watching a session: inspect_url")
    r.call("the JSON the inspect_url page polls: the calls after the 8th", "GET", f"{inspector}/state?after=8")

    r.heading("Errors")
    r.call("missing required parameter", "GET", f"{API}/search")
    r.call("wrong type and enum", "GET", f"{API}/browse?limit=many&sort=cheapest")
    r.call("unknown item", "GET", f"{API}/detail/no-such-thing")
    r.call("no session", "GET", f"{API}/cart/view")
    r.call("not JSON", "POST", f"{API}/cart/add", raw_body="item_id=x",
           headers={**auth, "Content-Type": "application/x-www-form-urlencoded"})
    r.call("quantity above stock or maximum", "POST", f"{API}/cart/add",
           body={"item_id": item_id, "quantity": 500}, headers=auth)
    r.call("quantity below its minimum (checked before the shop is asked)", "POST", f"{API}/cart/add",
           body={"item_id": item_id, "quantity": 0}, headers=auth)
    r.call("a product sold in variants, added by its own id", "POST", f"{API}/cart/add",
           body={"item_id": "round-planter"}, headers=auth)
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

    r.heading("Rate limit")
    search = f"{API}/search?q=celadon&limit=1"
    r.call("a counted answer", "GET", search, show=RATE_HEADERS, show_full=False)
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
