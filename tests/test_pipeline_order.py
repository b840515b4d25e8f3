"""One pipeline for every transport, in one order (http/pipeline.py), in process.

Whatever the transport (agent API, A2A, PactSpec per skill and through its dispatcher, MCP):
every refusal passes the configured EXCEPTION_HANDLER before the transport writes it in its
wire format, the configured AUTHENTICATION_CLASSES say who calls, the configured STEP_CLASSES
run around every call, and the body is parsed after authentication and throttling unless it
names the call, where a malformed one still takes the counted path.
"""
import json
from types import SimpleNamespace

import pytest
from django.test import RequestFactory
from django_ratelimit import core
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import BasePermission

from agents_protocol.http.authentication import AgentSessionAuthentication
from agents_protocol.http.exceptions import envelope_exception_handler
from agents_protocol.http.steps import Step
from agents_protocol.http.views import AgentApiView
from agents_protocol.models import RateLimitConfig
from cart.models import CartLine
from tests.api_client import API
from tests.factories import make_agent_session, make_product
from tests.transports import PARSE_ERROR, TRANSPORTS, refused

FROZEN_NOW = 1_800_000_000
SEEN = []  # what the test exception handler and authentication were handed, in order


@pytest.fixture(autouse=True)
def forget_what_was_seen():
    SEEN.clear()


@pytest.fixture(params=list(TRANSPORTS))
def transport(request, site_client):
    return TRANSPORTS[request.param](site_client)


@pytest.fixture
def token(db):
    make_product(public_id="mug", stock=50)
    return make_agent_session().raw_token


@pytest.fixture
def clock(monkeypatch):
    """django-ratelimit's time, frozen, so no window ends in the middle of a test."""
    monkeypatch.setattr(core, "time", SimpleNamespace(time=lambda: float(FROZEN_NOW)))


def steps(settings, **overrides):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, **overrides}


def seeing_exception_handler(exc, context):
    """A shop's handler: notes each exception and view, and tags the envelope it answers."""
    SEEN.append((type(context["view"]).__name__, type(exc).__name__))
    response = envelope_exception_handler(exc, context)
    response["X-Shop-Refusal"] = response.data["code"]
    return response


class NobodyAuthentication(AgentSessionAuthentication):
    """A shop's authentication that notes each view it is asked about and authenticates nobody."""

    def authenticate(self, request):
        SEEN.append(type(request.parser_context["view"]).__name__)
        return None


class RefusingAuthentication(AgentSessionAuthentication):
    """A shop's authentication that refuses every token DRF's way."""

    def authenticate(self, request):
        raise AuthenticationFailed("Shop tokens only.")


class RefusingPermission(BasePermission):
    """A shop's permission that refuses every call of an authenticated session."""

    message = "This shop's agents only."

    def has_permission(self, request, view):
        return False


class ShopStep(Step):
    """A shop's step: a header on every answer, refusals included."""

    def after(self, view, request, response):
        response["X-Shop-Step"] = type(view).__name__
        return response


def test_the_configured_exception_handler_writes_every_refusal_of_every_transport(transport, token, settings):
    """A session refusal, invalid parameters and a malformed body all pass the shop's handler (its
    header is on the answer) and are then written in the transport's own wire format."""
    steps(settings, EXCEPTION_HANDLER=f"{__name__}.seeing_exception_handler")
    for outcome, (status, code) in [
        (transport.call("cart.add", {"item_id": "mug"}), (401, "session_required")),
        (transport.call("cart.add", {"item_id": "mug", "quantity": "two"}, token=token), (400, "invalid_params")),
    ]:
        refused(outcome, status, code)
        assert outcome.headers["X-Shop-Refusal"] == code, outcome.body
    malformed = transport.call("cart.add", token=token, raw_input=b"{")
    transport.assert_malformed(malformed, "invalid_json")
    assert malformed.headers["X-Shop-Refusal"] == "invalid_json"
    assert len(SEEN) == 3 and len({view for view, _ in SEEN}) == 1, SEEN


@pytest.mark.parametrize("name, body, exception", [
    ("a2a", b'{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{}}', "RpcError"),
    ("mcp", b'[{"jsonrpc":"2.0","id":7,"method":"ping"}]', "McpError"),
])
def test_a_refusal_of_the_json_rpc_layer_passes_the_handler_too(site_client, token, settings, name, body, exception):
    """A2A's unserved method and MCP's batch are the transport's own refusals: the shop's handler
    sees them, and the answer keeps the JSON-RPC error the protocol defines."""
    steps(settings, EXCEPTION_HANDLER=f"{__name__}.seeing_exception_handler")
    adapter = TRANSPORTS[name](site_client)
    headers = {"Content-Type": "application/json", "A2A-Version": "1.0", "Mcp-Session-Id": token,
               "MCP-Protocol-Version": "2025-11-25", "Accept": "application/json"}
    answer = adapter.post(adapter.site.a2a_url if name == "a2a" else adapter.site.mcp_url, body, headers)
    assert [seen for _, seen in SEEN] == [exception]
    assert answer.headers["X-Shop-Refusal"] == "invalid_request"
    error = json.loads(answer.content)["error"]
    assert error["code"] == (-32001 if name == "a2a" else -32600), error


def test_the_configured_authentication_decides_for_every_transport(transport, token, settings):
    """With an authentication that authenticates nobody, a live session's token buys nothing on any
    transport (MCP included): cart.add is refused 401 session_required, and nothing is added."""
    steps(settings, AUTHENTICATION_CLASSES=[f"{__name__}.NobodyAuthentication"])
    outcome = transport.call("cart.add", {"item_id": "mug"}, token=token)
    refused(outcome, 401, "session_required")
    assert outcome.http_status == transport.session_refusal_status("session_required")
    assert SEEN and not CartLine.objects.exists()


def test_a_shop_authentications_drf_refusal_is_the_transports_401(transport, token, settings):
    """DRF's AuthenticationFailed, raised by a shop's authentication class, is 401 session_invalid
    with WWW-Authenticate in each transport's form, never a 500."""
    steps(settings, AUTHENTICATION_CLASSES=[f"{__name__}.RefusingAuthentication"])
    outcome = transport.call("cart.add", {"item_id": "mug"}, token=token)
    refused(outcome, 401, "session_invalid")
    assert outcome.http_status == transport.session_refusal_status("session_invalid")
    assert outcome.headers["WWW-Authenticate"] == 'Bearer realm="agents"'


def test_a_shop_permissions_drf_refusal_is_the_transports_403(transport, token, settings):
    """DRF's PermissionDenied, from a shop's permission class, is 403 `forbidden` with the class's
    own sentence in each transport's form, never a 500; nothing runs."""
    steps(settings, PERMISSION_CLASSES=[f"{__name__}.RefusingPermission"])
    outcome = transport.call("cart.add", {"item_id": "mug"}, token=token)
    refused(outcome, 403, "forbidden")
    assert not CartLine.objects.exists()


def test_without_the_setting_mcp_reads_the_session_from_mcp_session_id(token, site_client):
    assert TRANSPORTS["mcp"](site_client).call("cart.add", {"item_id": "mug"}, token=token).ok


def test_the_configured_steps_run_around_every_call_of_every_transport(transport, token, settings):
    """STEP_CLASSES replaces the default list: a shop's step adds its header to answers and refusals
    alike; without the Idempotency step, the same key and body run twice."""
    steps(settings, STEP_CLASSES=[f"{__name__}.ShopStep"])
    key = {"Idempotency-Key": f"{transport.name}-steps-1"}
    first = transport.call("cart.add", {"item_id": "mug"}, token=token, headers=key)
    again = transport.call("cart.add", {"item_id": "mug"}, token=token, headers=key)
    assert first.ok and again.ok and not again.replayed, again.body
    assert CartLine.objects.get().quantity == 2
    assert first.headers["X-Shop-Step"] and "X-Request-ID" not in first.headers
    assert transport.call("cart.add", {"item_id": "mug"}).headers["X-Shop-Step"] == first.headers["X-Shop-Step"]


def test_a_view_may_name_its_own_steps(token):
    """A view's `step_classes` wins over STEP_CLASSES: only its steps run."""
    view = AgentApiView.as_view(step_classes=[ShopStep])
    response = view(RequestFactory().get(f"{API}/search", {"q": "mug"}))
    assert response.status_code == 200, response.content
    assert response["X-Shop-Step"] == "AgentApiView"
    assert "X-Request-ID" not in response and "Access-Control-Allow-Origin" not in response


@pytest.mark.parametrize("name", ["api", "pactspec"])
def test_a_body_that_names_no_call_is_parsed_after_authentication(site_client, token, name):
    """The agent API and a PactSpec skill's own URL read the body after authentication, as DRF does:
    a malformed body without a session is the 401, not the 400."""
    refused(TRANSPORTS[name](site_client).call("cart.add", raw_input=b"{"), 401, "session_required")


def test_a_malformed_body_to_a2a_is_counted_once_and_over_the_limit_is_the_429(site_client, token, clock):
    """A2A reads the body to find the call, before the throttle: its malformed body is still counted
    against the address, once. With requests_per_minute = 3 and two calls made, a malformed body is
    the third (-32700, Remaining 0) and the next one, over the limit, is HTTP 429 rate_limited."""
    config = RateLimitConfig.load()
    config.requests_per_minute = 3
    config.save()
    a2a = TRANSPORTS["a2a"](site_client)
    assert all(a2a.call("search", {"q": "mug"}).ok for _ in range(2))
    malformed = a2a.call("search", raw_input=b"{")
    assert malformed.rpc_code == PARSE_ERROR and malformed.http_status == 200, malformed.body
    assert malformed.headers["X-RateLimit-Remaining"] == "0"
    over = a2a.call("search", raw_input=b"{")
    refused(over, 429, "rate_limited")
    assert over.http_status == 429 and int(over.headers["Retry-After"]) >= 1
