"""The pipeline's steps are DRF classes a shop swaps from AGENTS_PROTOCOL, one at a time, and
the session authentication works on a shop's own DRF views (in process)."""
import pytest
from django.test import RequestFactory
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from agents_protocol.core.errors import CapabilityError
from agents_protocol.http.authentication import AgentSessionAuthentication
from agents_protocol.http.exceptions import envelope_exception_handler
from agents_protocol.http.throttling import AgentRateThrottle
from agents_protocol.http.views import AgentApiView
from tests.api_client import API, IN_PROCESS_URL, AgentClient, assert_error, auth_headers, ok_data
from tests.factories import make_agent_session, make_product

TIMEOUT = 10


class RefuseEverything(BaseThrottle):
    def allow_request(self, request, view):
        return False

    def wait(self):
        return 7


class NeverCounts(AgentRateThrottle):
    """A shop's subclass of the default throttle that lets everything through uncounted."""

    def allow_request(self, request, view):
        self.usage = None
        return True


class ShopHeaderAuthentication(AgentSessionAuthentication):
    """A shop that also accepts the token in its own header."""

    def authenticate(self, request):
        token = request.META.get("HTTP_X_SHOP_AGENT")
        if token:
            request.META["HTTP_AUTHORIZATION"] = f"Bearer {token}"
        return super().authenticate(request)


def tagging_exception_handler(exc, context):
    response = envelope_exception_handler(exc, context)
    response["X-Shop-Refusal"] = response.data["code"]
    return response


def steps(settings, **overrides):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, **overrides}


def test_a_swapped_throttle_refuses_with_the_envelope_and_its_wait(site_client, settings):
    steps(settings, THROTTLE_CLASSES=[f"{__name__}.RefuseEverything"])
    response = AgentClient(django_client=site_client).get(f"{API}/search", {"q": "mug"})
    assert_error(response, 429, "rate_limited")
    assert response.headers["Retry-After"] == "7"


def test_a_throttle_subclass_replaces_the_default_alone(site_client, settings):
    steps(settings, THROTTLE_CLASSES=[f"{__name__}.NeverCounts"])
    response = AgentClient(django_client=site_client).get(f"{API}/search", {"q": "mug"})
    ok_data(response)
    assert "X-RateLimit-Remaining" not in response.headers


def test_without_the_setting_the_default_throttle_counts(site_client):
    response = AgentClient(django_client=site_client).get(f"{API}/search", {"q": "mug"})
    ok_data(response)
    assert response.headers["X-RateLimit-Remaining"] == str(int(response.headers["X-RateLimit-Limit"]) - 1)


def test_a_swapped_authentication_reads_the_shops_own_header(http, settings):
    steps(settings, AUTHENTICATION_CLASSES=[f"{__name__}.ShopHeaderAuthentication"])
    session, mug = make_agent_session(), make_product(stock=5)
    answer = http.post(f"{IN_PROCESS_URL}{API}/cart/add", json={"item_id": mug.public_id, "quantity": 1},
                       headers={"X-Shop-Agent": session.raw_token}, timeout=TIMEOUT)
    assert ok_data(answer)["quantity"] == 1
    assert_error(http.post(f"{IN_PROCESS_URL}{API}/cart/add", json={"item_id": mug.public_id},
                           headers={"X-Shop-Agent": "not-a-token"}, timeout=TIMEOUT), 401, "session_invalid")


def test_a_swapped_exception_handler_writes_every_refusal(site_client, settings):
    steps(settings, EXCEPTION_HANDLER=f"{__name__}.tagging_exception_handler")
    agent = AgentClient(django_client=site_client)
    refused = agent.post(f"{API}/cart/add", {"item_id": "x"})
    assert_error(refused, 401, "session_required")
    assert refused.headers["X-Shop-Refusal"] == "session_required"
    assert agent.get(f"{API}/teleport").headers["X-Shop-Refusal"] == "not_found"


def test_the_exception_handler_answers_any_exception_as_an_envelope():
    response = envelope_exception_handler(CapabilityError(409, "cart_frozen", "Frozen."), {})
    assert (response.status_code, response.data) == (409, {"ok": False, "error": "Frozen.", "code": "cart_frozen"})
    response = envelope_exception_handler(ZeroDivisionError(), {})
    assert response.status_code == 500 and response.data["code"] == "internal_error"


@pytest.mark.urls("tests.shop_drf_urls")
def test_the_session_authentication_guards_a_shops_own_drf_view(http):
    session = make_agent_session()
    whoami = f"{IN_PROCESS_URL}/shop-api/whoami"
    answer = http.get(whoami, headers=auth_headers(session.raw_token), timeout=TIMEOUT)
    assert answer.status_code == 200
    assert answer.json() == {"session_id": session.public_id, "user": f"agent session {session.public_id}"}
    for header in ["X-Session-Token", "X-Agent-Session"]:
        answer = http.get(whoami, headers=auth_headers(session.raw_token, header), timeout=TIMEOUT)
        assert answer.json()["session_id"] == session.public_id
    refused = http.get(whoami, headers=auth_headers("forged"), timeout=TIMEOUT)
    assert refused.status_code == 401 and refused.headers["WWW-Authenticate"] == 'Bearer realm="agents"'


def test_every_agent_view_uses_drfs_own_request():
    request = AgentApiView().initialize_request(RequestFactory().get("/.well-known/agents/api/search"))
    assert type(request) is Request
