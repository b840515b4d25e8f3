"""One pipeline, three transports: the agent API, A2A JSON-RPC and PactSpec invocation behave alike.

Every capability is reachable three ways: its agent API endpoint, `SendMessage` on the A2A
JSON-RPC endpoint, and PactSpec invocation (per skill, `POST <endpoint.url>/<skill id>`, and
through the dispatcher, `POST <endpoint.url>` with `{"skill", "input"}`). Whatever the way in,
the same steps run: body guards, authentication, rate limits, parameter validation,
Idempotency-Key, the audit event, and nothing stored changes when a call is refused.

Each property is written once and parametrized over the transports (`transport` fixture:
api, a2a, pactspec, pactspec-dispatch). The adapters below call over real HTTP (live_server)
and read each wire format into one `Outcome`, checking the format as they read:

- agent API: `{"ok": true, "data"}` / `{"ok": false, "error", "code", "fields"?}` with the
  refusal's HTTP status;
- PactSpec: the capability's data itself on success, the agent API's error envelope and
  status on refusal;
- A2A: a JSON-RPC result `{"message": {"role": "ROLE_AGENT", "parts": [{"data": …}]}}`, or a
  JSON-RPC error whose `data[0]` is a google.rpc ErrorInfo (reason = the code in capitals,
  metadata `{"code", "status"}`) and, for parameters, a google.rpc BadRequest; HTTP 401 and
  429 for those refusals, else 200.

No answer here may be a 5xx, an HTML page, or A2A's -32603 (internal error): none of these
calls gives the server a reason to fail.
"""
import json
from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace

import pytest
import requests
from django.utils import timezone
from django_ratelimit import core

from agents_protocol.audit import verify
from agents_protocol.models import RateLimitConfig
from cart.models import CartLine
from tests.factories import make_agent_session, make_product
from tests.test_hostile_input import stored_state

TIMEOUT = 10
MAX_BODY_BYTES = 64 * 1024  # the default MAX_BODY_BYTES
TOKEN_HEADERS = ["Authorization", "X-Session-Token", "X-Agent-Session"]
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, INTERNAL_ERROR, UNSUPPORTED_OPERATION = (
    -32700, -32600, -32602, -32603, -32004)
HTTP_LEVEL_STATUSES = (401, 429)  # what A2A answers with the refusal's own HTTP status
MALFORMED_STATUS = {"invalid_json": 400, "payload_too_large": 413, "unsupported_media_type": 415}
MALFORMED_RPC_CODE = {"invalid_json": PARSE_ERROR, "payload_too_large": INVALID_REQUEST,
                      "unsupported_media_type": INVALID_REQUEST}


@lru_cache
def discovered(base_url):
    """Where each transport serves what, read once from the site's published documents."""
    def get(path):
        response = requests.get(base_url + path, timeout=TIMEOUT)
        assert response.status_code == 200, response.text
        return response.json()

    agents, pactspec, card = (get("/.well-known/agents.json"), get("/.well-known/pactspec.json"),
                              get("/.well-known/agent-card.json"))
    assert len(pactspec["skills"]) == len(agents["capabilities"])  # one skill per capability, in order
    return SimpleNamespace(
        capabilities={c["name"]: c for c in agents["capabilities"]},
        session=agents["session"],
        skill_ids={c["name"]: s["id"] for c, s in zip(agents["capabilities"], pactspec["skills"])},
        pactspec_url=pactspec["endpoint"]["url"],
        a2a_url=card["supportedInterfaces"][0]["url"],
    )


def token_header(token, header="Authorization"):
    if token is None:
        return {}
    return {header: f"Bearer {token}" if header == "Authorization" else token}


@dataclass
class Outcome:
    """One answer, whatever the transport: `status` and `code` are the protocol's (for A2A,
    from the ErrorInfo; `http_status` is what came over the wire)."""
    transport: str
    http_status: int
    headers: object
    body: object
    ok: bool = False
    data: object = None
    status: int | None = None
    code: str | None = None
    fields: dict | None = None
    rpc_code: int | None = None

    @property
    def replayed(self):
        return self.headers.get("Idempotent-Replayed") == "true"


class Transport:
    """Calls a capability through one transport and reads its answer into an Outcome."""
    name = ""

    def __init__(self, base_url):
        self.base_url = base_url
        self.site = discovered(base_url)

    def call(self, capability, params=None, token=None, header="Authorization", headers=None, raw_input=None,
             content_type="application/json"):
        """Call `capability` with `params`, or with `raw_input`: bytes standing for the JSON text of its
        input object, put where this transport carries the input (the whole body for the agent API and
        a PactSpec skill URL, `input` for the dispatcher, the data part's `input` for A2A)."""
        if raw_input is None:
            raw_input = json.dumps(params or {}).encode()
        sent = {"Content-Type": content_type, **token_header(token, header), **(headers or {})}
        response = self.send(capability, params or {}, raw_input, sent)
        assert response.status_code < 500, f"{self.name}: {response.status_code} {response.text[:500]}"
        content = response.headers.get("Content-Type", "")
        assert content.split(";")[0] == "application/json", f"{self.name}: {content} {response.text[:500]}"
        outcome = Outcome(self.name, response.status_code, response.headers, response.json())
        self.read(outcome)
        return outcome

    def post(self, url, body, headers):
        return requests.post(url, data=body, headers=headers, timeout=TIMEOUT)

    def read_envelope(self, outcome):
        body = outcome.body
        assert isinstance(body, dict) and body.get("ok") is False, body
        assert set(body) <= {"ok", "error", "code", "fields"}, body
        assert isinstance(body["error"], str) and body["error"], body
        assert isinstance(body["code"], str) and body["code"], body
        assert outcome.http_status >= 400, body
        outcome.status, outcome.code, outcome.fields = outcome.http_status, body["code"], body.get("fields")
        if outcome.fields is not None:
            assert isinstance(outcome.fields, dict) and outcome.fields, body

    def assert_malformed(self, outcome, code):
        """The refusal of a body this transport cannot read (see MALFORMED_STATUS)."""
        refused(outcome, MALFORMED_STATUS[code], code)


class AgentApi(Transport):
    name = "api"

    def send(self, capability, params, raw_input, headers):
        declared = self.site.capabilities[capability]
        url = self.base_url + declared["endpoint"]
        if declared["method"] == "GET":
            return requests.get(url, params=params, headers=headers, timeout=TIMEOUT)
        return requests.request(declared["method"], url, data=raw_input, headers=headers, timeout=TIMEOUT)

    def read(self, outcome):
        body = outcome.body
        if outcome.http_status < 400:
            assert set(body) == {"ok", "data"} and body["ok"] is True, body
            outcome.ok, outcome.data, outcome.status = True, body["data"], outcome.http_status
        else:
            self.read_envelope(outcome)

    def stable(self, body):
        return body


class PactSpec(Transport):
    """PactSpec per skill: POST <endpoint.url>/<skill id> with the input as the body."""
    name = "pactspec"

    def send(self, capability, params, raw_input, headers):
        return self.post(f"{self.site.pactspec_url}/{self.site.skill_ids[capability]}", raw_input, headers)

    def read(self, outcome):
        if outcome.http_status < 400:
            assert outcome.http_status == 200, outcome.body
            assert not (isinstance(outcome.body, dict) and set(outcome.body) == {"ok", "data"}), (
                f"PactSpec answers the data itself, no envelope: {outcome.body}")
            outcome.ok, outcome.data, outcome.status = True, outcome.body, 200
        else:
            self.read_envelope(outcome)

    def stable(self, body):
        return body


class PactSpecDispatch(PactSpec):
    """PactSpec through the dispatcher: POST <endpoint.url> with {"skill": <skill id>, "input": {…}}."""
    name = "pactspec-dispatch"

    def send(self, capability, params, raw_input, headers):
        body = b'{"skill":' + json.dumps(self.site.skill_ids[capability]).encode() + b',"input":' + raw_input + b"}"
        return self.post(self.site.pactspec_url, body, headers)


class A2A(Transport):
    """A2A JSON-RPC: SendMessage with a data part {"skill": <capability name>, "input": {…}}."""
    name = "a2a"

    def send(self, capability, params, raw_input, headers):
        body = (b'{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1",'
                b'"role":"ROLE_USER","parts":[{"data":{"skill":' + json.dumps(capability).encode()
                + b',"input":' + raw_input + b"}}]}}}")
        return self.post(self.site.a2a_url, body, headers)

    def read(self, outcome):
        body = outcome.body
        assert isinstance(body, dict) and body.get("jsonrpc") == "2.0", body
        assert ("result" in body) != ("error" in body), body
        if "result" in body:
            assert outcome.http_status == 200, body
            message = body["result"]["message"]
            assert message["role"] == "ROLE_AGENT" and len(message["parts"]) == 1, body
            outcome.ok, outcome.data, outcome.status = True, message["parts"][0]["data"], 200
            return
        error = body["error"]
        assert isinstance(error["code"], int) and isinstance(error["message"], str) and error["message"], body
        outcome.rpc_code = error["code"]
        assert outcome.rpc_code != INTERNAL_ERROR, f"-32603 (internal error) for a call the server can answer: {body}"
        details = error.get("data")
        if details:
            info = details[0]
            assert info["@type"] == ERROR_INFO, body
            assert set(info["metadata"]) == {"code", "status"}, body
            outcome.code, outcome.status = info["metadata"]["code"], int(info["metadata"]["status"])
            assert info["reason"] == outcome.code.upper(), body
            violations = [d for d in details[1:] if d.get("@type") == BAD_REQUEST]
            if violations:
                outcome.fields = {v["field"]: v["description"] for v in violations[0]["fieldViolations"]}
            expected_http = outcome.status if outcome.status in HTTP_LEVEL_STATUSES else 200
            assert outcome.http_status == expected_http, f"HTTP {outcome.http_status}: {body}"
            if outcome.status == 501:
                assert outcome.rpc_code == UNSUPPORTED_OPERATION, body
        else:
            assert outcome.http_status == 200, body

    def assert_malformed(self, outcome, code):
        """-32700 for a body that is not the JSON accepted (id null: it could not be read), -32600 for a
        body too large or not sent as application/json; HTTP 200."""
        assert not outcome.ok, outcome.body
        assert outcome.rpc_code == MALFORMED_RPC_CODE[code], outcome.body
        assert outcome.http_status == 200, outcome.body
        if outcome.rpc_code == PARSE_ERROR:
            assert outcome.body["id"] is None, outcome.body

    def stable(self, body):
        """The answer without the fresh messageId each answer message gets."""
        body = json.loads(json.dumps(body))
        body.get("result", {}).get("message", {}).pop("messageId", None)
        return body


TRANSPORTS = {"api": AgentApi, "a2a": A2A, "pactspec": PactSpec, "pactspec-dispatch": PactSpecDispatch}


def refused(outcome, status, code, field=None):
    """A refusal with the protocol's status and code (naming `field` among its parameters)."""
    assert not outcome.ok, f"{outcome.transport}: {outcome.body}"
    assert (outcome.status, outcome.code) == (status, code), f"{outcome.transport}: {outcome.body}"
    if field is not None:
        assert field in (outcome.fields or {}), f"{outcome.transport}: {outcome.body}"
    if outcome.transport == "a2a" and code == "invalid_params":
        assert outcome.rpc_code == INVALID_PARAMS and outcome.fields, outcome.body


@pytest.fixture(params=list(TRANSPORTS))
def transport(request, live_server):
    return TRANSPORTS[request.param](live_server.url)


@pytest.fixture
def shop(live_server):
    make_product(public_id="mug", stock=50)
    make_product(public_id="vase", stock=50)
    make_product(public_id="few", stock=2)


@pytest.fixture
def token(shop):
    """A live session's token (made in the database: the session endpoint is not under test here)."""
    return make_agent_session().raw_token


@pytest.fixture
def clock(monkeypatch):
    """django-ratelimit's time, frozen, so no window ends in the middle of a test."""
    monkeypatch.setattr(core, "time", SimpleNamespace(time=lambda: 1_800_000_000.0))


def set_limit(requests_per_minute):
    config = RateLimitConfig.load()
    config.requests_per_minute = requests_per_minute
    config.save()


# 1, 2. Body guards


DEEP = b'{"item_id":"mug","nested":' + b"[" * 899 + b"]" * 899 + b"}"  # 900 levels with the object
MALFORMED = {
    "nested-900-deep": (DEEP, "invalid_json"),
    "nan": (b'{"item_id":"mug","quantity":NaN}', "invalid_json"),
    "repeated-key": (b'{"item_id":"mug","quantity":1,"quantity":2}', "invalid_json"),
    "not-utf-8": (b'{"item_id":"mug\xff\xfe"}', "invalid_json"),
    "over-64-KiB": (b'{"item_id":"mug","note":"' + b"x" * MAX_BODY_BYTES + b'"}', "payload_too_large"),
}


@pytest.mark.parametrize("raw_input, code", MALFORMED.values(), ids=list(MALFORMED))
def test_a_malformed_body_is_refused_and_changes_nothing(transport, token, raw_input, code):
    """A body nested 900 deep, with NaN, with a key repeated in one object, not UTF-8, or over
    MAX_BODY_BYTES is refused: 400 invalid_json / 413 payload_too_large (agent API, PactSpec),
    -32700 / -32600 (A2A); never a 5xx, -32603 or HTML; carts, lines and sessions unchanged."""
    before = stored_state()
    outcome = transport.call("cart.add", token=token, raw_input=raw_input)
    transport.assert_malformed(outcome, code)
    assert stored_state() == before


def test_a_json_body_sent_as_text_plain_is_refused_and_changes_nothing(transport, token):
    """A valid JSON body with Content-Type: text/plain is refused before anything runs: 415
    unsupported_media_type (agent API, PactSpec); A2A -32600 invalid request with HTTP 200 — the
    HTTP request is not a JSON-RPC request as the binding defines it (application/json), the same
    class of refusal as a body too large; not -32700 (the text parses) nor -32602 (nothing is
    wrong with the parameters)."""
    before = stored_state()
    outcome = transport.call("cart.add", {"item_id": "mug"}, token=token, content_type="text/plain")
    transport.assert_malformed(outcome, "unsupported_media_type")
    assert stored_state() == before


# 3. Parameters


INVALID_PARAMS_CASES = {
    "quantity-two": ({"item_id": "mug", "quantity": "two"}, "quantity"),
    "no-item-id": ({"quantity": 1}, "item_id"),
}


@pytest.mark.parametrize("params, field", INVALID_PARAMS_CASES.values(), ids=list(INVALID_PARAMS_CASES))
def test_parameters_are_validated_alike_and_the_parameter_is_named(transport, token, params, field):
    """cart.add with quantity "two" or without item_id is 400 invalid_params naming the parameter
    (the envelope's `fields`; A2A: -32602 with a BadRequest field violation)."""
    before = stored_state()
    refused(transport.call("cart.add", params, token=token), 400, "invalid_params", field)
    assert stored_state() == before


# 4. Authentication


def test_without_a_token_a_session_capability_is_401_session_required(transport, shop):
    """cart.add without a token is 401 session_required (A2A: at the HTTP level) with
    WWW-Authenticate, and changes nothing."""
    before = stored_state()
    outcome = transport.call("cart.add", {"item_id": "mug"})
    refused(outcome, 401, "session_required")
    assert outcome.http_status == 401 and outcome.headers.get("WWW-Authenticate")
    assert stored_state() == before


@pytest.mark.parametrize("header", TOKEN_HEADERS)
def test_each_token_header_is_read_garbage_is_session_invalid_and_ended_is_session_ended(transport, shop, header):
    """In Authorization: Bearer, X-Session-Token and X-Agent-Session alike: a garbage token is 401
    session_invalid, an ended session's token 401 session_ended (with WWW-Authenticate, nothing
    changed), and a live session's token is accepted."""
    ended = make_agent_session(ended_at=timezone.now(), end_reason="deleted")
    before = stored_state()
    for token, code in (("garbage-not-a-session-token", "session_invalid"), (ended.raw_token, "session_ended")):
        outcome = transport.call("cart.add", {"item_id": "mug"}, token=token, header=header)
        refused(outcome, 401, code)
        assert outcome.http_status == 401 and outcome.headers.get("WWW-Authenticate")
    assert stored_state() == before

    accepted = transport.call("cart.add", {"item_id": "mug"}, token=make_agent_session().raw_token, header=header)
    assert accepted.ok and accepted.data["quantity"] == 1, accepted.body


# 5. Rate limits


def rate_headers(outcome):
    return {name: outcome.headers.get(name) for name in ("X-RateLimit-Limit", "X-RateLimit-Remaining",
                                                          "X-RateLimit-Reset")}


def test_every_counted_answer_carries_the_rate_limit_headers(transport, token):
    """A success, invalid parameters, a malformed body and a missing session all carry
    X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset."""
    outcomes = [
        transport.call("cart.view", token=token),
        transport.call("cart.add", {"item_id": "mug", "quantity": "two"}, token=token),
        transport.call("cart.add", token=token, raw_input=b"{"),
        transport.call("cart.add", {"item_id": "mug"}),
    ]
    assert outcomes[0].ok and not any(o.ok for o in outcomes[1:])
    for outcome in outcomes:
        headers = rate_headers(outcome)
        assert headers["X-RateLimit-Limit"] == "60", (outcome.body, headers)
        assert headers["X-RateLimit-Remaining"] and headers["X-RateLimit-Remaining"].isdigit(), headers
        assert headers["X-RateLimit-Reset"] and 1 <= int(headers["X-RateLimit-Reset"]) <= 60, headers


def test_past_the_limit_a_session_gets_429_rate_limited_and_others_keep_their_budgets(transport, token, clock):
    """With requests_per_minute = 3, a session's fourth call is 429 rate_limited (A2A: HTTP 429)
    with Retry-After; the budget is the session's: the address and another session still get answers."""
    set_limit(3)
    answered = [transport.call("cart.view", token=token) for _ in range(3)]
    over = transport.call("cart.view", token=token)

    assert all(o.ok for o in answered), [o.body for o in answered]
    refused(over, 429, "rate_limited")
    assert over.http_status == 429
    assert int(over.headers["Retry-After"]) >= 1 and over.headers["X-RateLimit-Remaining"] == "0"
    assert transport.call("search", {"q": "mug"}).ok
    assert transport.call("cart.view", token=make_agent_session().raw_token).ok


@pytest.mark.parametrize("last", ["api", "a2a", "pactspec"])
def test_one_session_has_one_budget_across_the_transports(live_server, token, clock, last):
    """With requests_per_minute = 4, two calls of a session through each of two transports use its
    budget up: the fifth, through the third transport, is 429 rate_limited."""
    set_limit(4)
    transports = [TRANSPORTS[name](live_server.url) for name in ("api", "a2a", "pactspec") if name != last]
    calls = [transport.call("cart.view", token=token) for transport in transports for _ in range(2)]
    over = TRANSPORTS[last](live_server.url).call("cart.view", token=token)

    assert all(o.ok for o in calls), [o.body for o in calls]
    assert [o.headers.get("X-RateLimit-Remaining") for o in calls] == ["3", "2", "1", "0"]
    refused(over, 429, "rate_limited")
    assert int(over.headers["Retry-After"]) >= 1


# 6. Idempotency-Key


def test_the_same_key_and_body_twice_runs_once_and_replays_the_answer(transport, token):
    """A POST sent twice with the same Idempotency-Key and body runs once (the line's quantity grows
    once); the second answer carries Idempotent-Replayed: true and the first one's body (A2A: but
    for the answer message's messageId)."""
    key = {"Idempotency-Key": f"{transport.name}-replay-1"}
    first = transport.call("cart.add", {"item_id": "mug", "quantity": 2}, token=token, headers=key)
    again = transport.call("cart.add", {"item_id": "mug", "quantity": 2}, token=token, headers=key)

    assert first.ok and first.data["quantity"] == 2 and not first.replayed, first.body
    assert again.replayed, again.headers
    assert again.http_status == first.http_status
    assert transport.stable(again.body) == transport.stable(first.body)
    assert CartLine.objects.get().quantity == 2


def test_the_same_key_with_another_body_is_422_idempotency_conflict(transport, token):
    """The same Idempotency-Key with a different body is refused 422 idempotency_conflict (A2A: a
    JSON-RPC error with reason IDEMPOTENCY_CONFLICT) and nothing runs."""
    key = {"Idempotency-Key": f"{transport.name}-conflict-1"}
    first = transport.call("cart.add", {"item_id": "mug", "quantity": 2}, token=token, headers=key)
    conflict = transport.call("cart.add", {"item_id": "mug", "quantity": 3}, token=token, headers=key)

    assert first.ok, first.body
    refused(conflict, 422, "idempotency_conflict")
    assert CartLine.objects.get().quantity == 2


# 7. Audit


@pytest.fixture
def key_file(settings, tmp_path):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "SIGNING_KEY": None,
                                "SIGNING_KEY_FILE": tmp_path / "audit_signing_key"}


def start_session(base_url):
    """(token, session id) of a session created through the session endpoint (so it is audited)."""
    response = requests.post(base_url + discovered(base_url).session["create"], timeout=TIMEOUT,
                             json={"agent_name": "pipeline-test"})
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    return data["session_token"], data["session_id"]


def sealed_trail(base_url, token):
    """End the session with DELETE, fetch its artifact as the agent API allows; (artifact, published key)."""
    ended = requests.delete(base_url + discovered(base_url).session["delete"], timeout=TIMEOUT,
                            headers=token_header(token))
    assert ended.status_code == 200, ended.text
    artifact = requests.get(ended.json()["data"]["audit_url"], headers=token_header(token), timeout=TIMEOUT)
    assert artifact.status_code == 200, artifact.text
    key = requests.get(f"{base_url}/.well-known/agents.json", timeout=TIMEOUT).json()["audit"]["public_key"]
    return artifact.json()["data"], key


def trail(artifact):
    return [(e["capability"], e["policy_result"]) for e in artifact["events"]]


@pytest.mark.usefixtures("key_file")
def test_a_sessions_calls_through_one_transport_are_in_its_sealed_trail(transport, shop, live_server):
    """Allowed and refused calls of a session through the transport are in its sealed audit trail,
    in call order, each with its capability and "allowed" or "refused:<code>"; the artifact verifies
    with the published key."""
    token, _ = start_session(live_server.url)
    assert transport.call("cart.add", {"item_id": "mug", "quantity": 2}, token=token).ok
    refused(transport.call("cart.add", {"item_id": "nope"}, token=token), 404, "unknown_item")
    refused(transport.call("cart.add", {"item_id": "mug", "quantity": "two"}, token=token), 400, "invalid_params")
    assert transport.call("cart.view", token=token).ok

    artifact, key = sealed_trail(live_server.url, token)
    assert trail(artifact) == [
        ("session.create", "allowed"), ("cart.add", "allowed"), ("cart.add", "refused:unknown_item"),
        ("cart.add", "refused:invalid_params"), ("cart.view", "allowed"), ("session.end", "ended:deleted"),
    ]
    assert verify(artifact, key).ok


@pytest.mark.usefixtures("key_file")
def test_one_sessions_calls_through_all_transports_are_one_sealed_trail_in_call_order(shop, live_server):
    """Calls of one session through the agent API, A2A and PactSpec (both forms), allowed and refused,
    are one chain in call order, and the sealed artifact verifies with the published key."""
    api, a2a, pactspec, dispatch = (TRANSPORTS[name](live_server.url) for name in TRANSPORTS)
    token, _ = start_session(live_server.url)
    assert api.call("cart.add", {"item_id": "mug"}, token=token).ok
    refused(a2a.call("cart.add", {"item_id": "nope"}, token=token), 404, "unknown_item")
    assert pactspec.call("cart.add", {"item_id": "vase"}, token=token).ok
    refused(dispatch.call("cart.add", {"quantity": 1}, token=token), 400, "invalid_params")
    assert a2a.call("cart.view", token=token).ok
    refused(api.call("cart.add", {"item_id": "mug", "quantity": "two"}, token=token), 400, "invalid_params")
    assert dispatch.call("cart.view", token=token).ok

    artifact, key = sealed_trail(live_server.url, token)
    assert trail(artifact) == [
        ("session.create", "allowed"), ("cart.add", "allowed"), ("cart.add", "refused:unknown_item"),
        ("cart.add", "allowed"), ("cart.add", "refused:invalid_params"), ("cart.view", "allowed"),
        ("cart.add", "refused:invalid_params"), ("cart.view", "allowed"), ("session.end", "ended:deleted"),
    ]
    assert [e["seq"] for e in artifact["events"]] == list(range(1, 10))
    assert verify(artifact, key).ok


# 8. What a call changes


def changed_lines(before, after):
    """The primary keys of cart lines added, removed or changed between two stored_state()s."""
    return {row[0] for row in set(before[1]) ^ set(after[1])}


def test_refused_calls_change_nothing_and_a_successful_add_changes_one_line(transport, token):
    """In a session with a cart: refused cart.adds (unknown item, negative quantity, more than the
    stock, invalid parameters) change nothing stored; a successful cart.add changes exactly one line
    (a new one, then the same one again) and nothing else."""
    assert transport.call("cart.add", {"item_id": "vase"}, token=token).ok  # the session's cart, one line
    before = stored_state()
    for params in ({"item_id": "nope"}, {"item_id": "mug", "quantity": -1}, {"item_id": "few", "quantity": 3},
                   {"item_id": "mug", "quantity": "two"}):
        outcome = transport.call("cart.add", params, token=token)
        assert not outcome.ok and 400 <= outcome.status < 500, outcome.body
        assert stored_state() == before, params

    lines = []
    for expected in (2, 4):
        added = transport.call("cart.add", {"item_id": "mug", "quantity": 2}, token=token)
        assert added.ok and added.data["quantity"] == expected, added.body
        after = stored_state()
        (line,) = changed_lines(before, after)
        assert after[0] == before[0] and after[2:] == before[2:]
        lines.append(line)
        before = after
    assert lines[0] == lines[1]
