"""One pipeline, four transports: the agent API, A2A JSON-RPC, PactSpec invocation and MCP behave alike.

Every capability is reachable four ways: its agent API endpoint, `SendMessage` on the A2A
JSON-RPC endpoint, PactSpec invocation (per skill, `POST <endpoint.url>/<skill id>`, and
through the dispatcher, `POST <endpoint.url>` with `{"skill", "input"}`), and `tools/call` on the
MCP server (the session token as its Mcp-Session-Id). Whatever the way in,
the same steps run: body guards, authentication, rate limits, parameter validation,
Idempotency-Key, the audit event, and nothing stored changes when a call is refused.

Each property is written once and parametrized over the transports (`transport` fixture:
api, a2a, pactspec, pactspec-dispatch, mcp). The adapters (tests/transports.py) call in process
(Django's test client; each transport's real-HTTP path is tested in tests/test_interop_*.py) and
read each wire format into one `Outcome`, checking the format as they read:
the agent API's envelope, PactSpec's data or the agent API's error envelope, A2A's JSON-RPC
result or error with its google.rpc ErrorInfo (HTTP 401 and 429 for those refusals, else 200),
MCP's tool result (isError with the envelope) or JSON-RPC error (a session refused: HTTP 400
without one, 404 for one not live, as Streamable HTTP says).

No answer here may be a 5xx, an HTML page, or JSON-RPC's -32603 (internal error): none of these
calls gives the server a reason to fail.
"""
import time
from types import SimpleNamespace

import pytest
from django.utils import timezone
from django_ratelimit import core

from acme.agents import AcmeProvider
from agents_protocol.audit import verify
from agents_protocol.core.errors import CapabilityError
from agents_protocol.http.sessions import end_session
from agents_protocol.models import AgentSession, AuditEvent, IdempotencyRecord, RateLimitConfig
from cart.models import CartLine, Order
from tests.api_client import IN_PROCESS_URL
from tests.factories import make_agent_session, make_product
from tests.test_hostile_input import stored_state
from tests.transports import TIMEOUT, TRANSPORTS, refused, token_header

MAX_BODY_BYTES = 64 * 1024  # the default MAX_BODY_BYTES
TOKEN_HEADERS = ["Authorization", "X-Session-Token", "X-Agent-Session"]
FROZEN_NOW = 1_800_000_000  # the Unix second the `clock` fixture freezes django-ratelimit's time at


@pytest.fixture(params=list(TRANSPORTS))
def transport(request, site_client):
    return TRANSPORTS[request.param](site_client)


@pytest.fixture
def shop(db):
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
    monkeypatch.setattr(core, "time", SimpleNamespace(time=lambda: float(FROZEN_NOW)))


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
    "half-a-surrogate-pair": (b'{"item_id":"mug\\ud800","quantity":1}', "invalid_json"),
    "half-a-pair-in-a-key": (b'{"item_id":"mug","quantity":1,"\\udfff":[1]}', "invalid_json"),
    "over-64-KiB": (b'{"item_id":"mug","note":"' + b"x" * MAX_BODY_BYTES + b'"}', "payload_too_large"),
}


@pytest.mark.parametrize("raw_input, code", MALFORMED.values(), ids=list(MALFORMED))
def test_a_malformed_body_is_refused_and_changes_nothing(transport, token, raw_input, code):
    """A body nested 900 deep, with NaN, with a key repeated in one object, not UTF-8, escaping
    half of a surrogate pair (a string no database or UTF-8 answer can hold), or over
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
    assert outcome.http_status == transport.session_refusal_status("session_required")
    assert outcome.headers.get("WWW-Authenticate")
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
        assert outcome.http_status == transport.session_refusal_status(code)
        assert outcome.headers.get("WWW-Authenticate")
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
    now = int(time.time())
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
        # The Unix time the window resets: within the next 60 seconds of the call.
        assert headers["X-RateLimit-Reset"] and now < int(headers["X-RateLimit-Reset"]) <= now + 61, headers


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
    # Retry-After in seconds; X-RateLimit-Reset the Unix time they lead to on the (frozen) clock.
    assert int(over.headers["X-RateLimit-Reset"]) == FROZEN_NOW + int(over.headers["Retry-After"])
    if transport.sessionless:  # MCP calls are all made in a session
        assert transport.call("search", {"q": "mug"}).ok
    assert transport.call("cart.view", token=make_agent_session().raw_token).ok


@pytest.mark.parametrize("last", ["api", "a2a", "pactspec"])
def test_one_session_has_one_budget_across_the_transports(site_client, token, clock, last):
    """With requests_per_minute = 4, two calls of a session through each of two transports use its
    budget up: the fifth, through the third transport, is 429 rate_limited."""
    set_limit(4)
    transports = [TRANSPORTS[name](site_client) for name in ("api", "a2a", "pactspec") if name != last]
    calls = [transport.call("cart.view", token=token) for transport in transports for _ in range(2)]
    over = TRANSPORTS[last](site_client).call("cart.view", token=token)

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


def test_a_capability_that_only_reads_ignores_the_key_and_keeps_no_answer(transport, token):
    """search (a GET capability; A2A, PactSpec and MCP reach it by POST) runs again under the same
    key: storing its answers a day under every fresh key would keep every page a client asks for."""
    key = {"Idempotency-Key": f"{transport.name}-read-1"}
    first = transport.call("search", {"q": "mug"}, token=token, headers=key)
    again = transport.call("search", {"q": "mug"}, token=token, headers=key)

    assert first.ok and again.ok and not again.replayed, again.body
    assert not IdempotencyRecord.objects.exists()


def test_the_same_key_with_another_body_is_422_idempotency_conflict(transport, token):
    """The same Idempotency-Key with a different body is refused 422 idempotency_conflict (A2A: a
    JSON-RPC error with reason IDEMPOTENCY_CONFLICT) and nothing runs."""
    key = {"Idempotency-Key": f"{transport.name}-conflict-1"}
    first = transport.call("cart.add", {"item_id": "mug", "quantity": 2}, token=token, headers=key)
    conflict = transport.call("cart.add", {"item_id": "mug", "quantity": 3}, token=token, headers=key)

    assert first.ok, first.body
    refused(conflict, 422, "idempotency_conflict")
    assert CartLine.objects.get().quantity == 2


def test_the_same_key_for_another_capability_is_422_and_it_does_not_run(transport, token):
    """A2A, PactSpec's dispatcher and MCP reach every capability at one path: the key's request is
    the capability too, so checkout with cart.add's key is refused, not answered cart.add's answer."""
    key = {"Idempotency-Key": f"{transport.name}-other-capability-1"}
    added = transport.call("cart.add", {"item_id": "mug"}, token=token, headers=key)
    checkout = transport.call("checkout", {}, token=token, headers=key)

    assert added.ok, added.body
    refused(checkout, 422, "idempotency_conflict")
    assert not checkout.replayed
    assert not Order.objects.exists()


def test_a_refusal_that_asks_for_a_retry_is_not_kept_under_its_key(transport, token, monkeypatch):
    """A 409 releases the key whatever HTTP status the transport answered it with (A2A and MCP: 200),
    so the retry runs instead of replaying the refusal. The 409 is the cart service's race (a
    checkout froze the cart between its read and its write), staged: it is hard to time."""
    add_to_cart = AcmeProvider.cart_add
    calls = []

    def frozen_the_first_time(provider, context, item_id, quantity):
        calls.append(item_id)
        if len(calls) == 1:
            raise CapabilityError(409, "cart_not_open", "This cart was checked out a moment ago; send the "
                                  "request again to use a new cart.")
        return add_to_cart(provider, context, item_id, quantity)

    monkeypatch.setattr(AcmeProvider, "cart_add", frozen_the_first_time)
    key = {"Idempotency-Key": f"{transport.name}-retryable-1"}
    first = transport.call("cart.add", {"item_id": "vase"}, token=token, headers=key)
    again = transport.call("cart.add", {"item_id": "vase"}, token=token, headers=key)

    refused(first, 409, "cart_not_open")
    assert again.ok and not again.replayed, again.body
    assert calls == ["vase", "vase"] and CartLine.objects.get().quantity == 1


# 7. Audit


def start_session(http, site):
    """(token, session id) of a session created through the session endpoint `site` (a transport's
    reading of the documents) publishes, so it is audited."""
    response = http.post(IN_PROCESS_URL + site.session["create"], timeout=TIMEOUT, json={"agent_name": "pipeline-test"})
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    return data["session_token"], data["session_id"]


def sealed_trail(http, site, token):
    """End the session with DELETE, fetch its artifact as the agent API allows; (artifact, published key)."""
    ended = http.delete(IN_PROCESS_URL + site.session["delete"], timeout=TIMEOUT, headers=token_header(token))
    assert ended.status_code == 200, ended.text
    artifact = http.get(ended.json()["data"]["audit_url"], headers=token_header(token), timeout=TIMEOUT)
    assert artifact.status_code == 200, artifact.text
    key = http.get(f"{IN_PROCESS_URL}/.well-known/agents.json", timeout=TIMEOUT).json()["audit"]["public_key"]
    return artifact.json()["data"], key


def trail(artifact):
    return [(e["capability"], e["policy_result"]) for e in artifact["events"]]


@pytest.mark.usefixtures("key_file")
def test_a_session_ended_during_a_change_refuses_the_change_and_its_trail_ends_as_sealed(
        transport, shop, http, monkeypatch):
    """The change and its event commit together: a session ended (by another request) between the
    call's authentication and its write refuses the change, 401 session_ended, instead of
    committing a change its sealed trail will never show. The race is staged inside the call."""
    token, session_id = start_session(http, transport.site)
    add_to_cart = AcmeProvider.cart_add

    def ended_meanwhile(provider, context, item_id, quantity):
        end_session(AgentSession.objects.get(pk=context.session.pk), "deleted")
        return add_to_cart(provider, context, item_id, quantity)

    monkeypatch.setattr(AcmeProvider, "cart_add", ended_meanwhile)
    refused(transport.call("cart.add", {"item_id": "mug"}, token=token), 401, "session_ended")
    assert not CartLine.objects.exists()
    events = AuditEvent.objects.filter(session__public_id=session_id).order_by("seq")
    assert [event.capability for event in events] == ["session.create", "session.end"]


@pytest.mark.usefixtures("key_file")
def test_a_sessions_calls_through_one_transport_are_in_its_sealed_trail(transport, shop, http):
    """Allowed and refused calls of a session through the transport are in its sealed audit trail,
    in call order, each with its capability and "allow" or "deny:<code>"; the artifact verifies
    with the published key."""
    token, _ = start_session(http, transport.site)
    assert transport.call("cart.add", {"item_id": "mug", "quantity": 2}, token=token).ok
    refused(transport.call("cart.add", {"item_id": "nope"}, token=token), 404, "unknown_item")
    refused(transport.call("cart.add", {"item_id": "mug", "quantity": "two"}, token=token), 400, "invalid_params")
    assert transport.call("cart.view", token=token).ok

    artifact, key = sealed_trail(http, transport.site, token)
    assert trail(artifact) == [
        ("session.create", "allow"), ("cart.add", "allow"), ("cart.add", "deny:unknown_item"),
        ("cart.add", "deny:invalid_params"), ("cart.view", "allow"), ("session.end", "allow:ended:deleted"),
    ]
    assert verify(artifact, key).ok


@pytest.mark.usefixtures("key_file")
def test_one_sessions_calls_through_all_transports_are_one_sealed_trail_in_call_order(shop, http):
    """Calls of one session through the agent API, A2A, PactSpec (both forms) and MCP, allowed and
    refused, are one chain in call order, and the sealed artifact verifies with the published key."""
    api, a2a, pactspec, dispatch, mcp = (TRANSPORTS[name](http.django_client) for name in TRANSPORTS)
    token, _ = start_session(http, api.site)
    assert api.call("cart.add", {"item_id": "mug"}, token=token).ok
    refused(a2a.call("cart.add", {"item_id": "nope"}, token=token), 404, "unknown_item")
    assert pactspec.call("cart.add", {"item_id": "vase"}, token=token).ok
    refused(dispatch.call("cart.add", {"quantity": 1}, token=token), 400, "invalid_params")
    assert a2a.call("cart.view", token=token).ok
    refused(api.call("cart.add", {"item_id": "mug", "quantity": "two"}, token=token), 400, "invalid_params")
    assert dispatch.call("cart.view", token=token).ok
    refused(mcp.call("cart.add", {"item_id": "nope"}, token=token), 404, "unknown_item")
    assert mcp.call("cart.view", token=token).ok

    artifact, key = sealed_trail(http, api.site, token)
    assert trail(artifact) == [
        ("session.create", "allow"), ("cart.add", "allow"), ("cart.add", "deny:unknown_item"),
        ("cart.add", "allow"), ("cart.add", "deny:invalid_params"), ("cart.view", "allow"),
        ("cart.add", "deny:invalid_params"), ("cart.view", "allow"), ("cart.add", "deny:unknown_item"),
        ("cart.view", "allow"), ("session.end", "allow:ended:deleted"),
    ]
    assert [e["seq"] for e in artifact["events"]] == list(range(1, 12))
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
