"""The A2A Agent Card and its JSON-RPC interface, checked with a2a-sdk's own parser and client.

a2a-sdk's client calls a live server (real HTTP); the card and raw JSON-RPC messages are checked in process."""
import asyncio
import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from io import StringIO

import pytest
import requests
from a2a.client import ClientCallContext, ClientConfig, create_client
from a2a.client.card_resolver import parse_agent_card
from a2a.client.errors import A2AClientError
from a2a.types.a2a_pb2 import AgentCard, Message, Part, Role, SendMessageRequest
from a2a.utils.errors import InvalidParamsError
from a2a.utils.proto_utils import validate_proto_required_fields
from django.core.management import call_command
from google.protobuf.json_format import MessageToDict, ParseDict
from google.protobuf.struct_pb2 import Value
from pydantic import BaseModel, ConfigDict

from catalog.demo import load_demo_catalog
from tests.api_client import API, IN_PROCESS_URL, AgentClient, ok_data

CARD = "/.well-known/agent-card.json"
RPC = "/.well-known/agents/a2a"
V1 = {"A2A-Version": "1.0"}


def served_card(http, base_url):
    """The demo catalog loaded, the card as `http` (requests' API) gets it from `base_url`."""
    load_demo_catalog()
    response = http.get(f"{base_url}{CARD}", timeout=10)
    assert response.status_code == 200
    return response.json()


@pytest.fixture
def card(http):
    return served_card(http, IN_PROCESS_URL)


@pytest.fixture
def live_card(live_server):
    return served_card(requests, live_server.url)


def test_card_parses_with_a2a_sdk_and_has_every_required_field(card):
    parsed = parse_agent_card(json.loads(json.dumps(card)))  # the parser rewrites legacy fields in place
    validate_proto_required_fields(parsed)
    strict = ParseDict(card, AgentCard())  # raises on any unknown field or wrong type
    validate_proto_required_fields(strict)
    assert strict == parsed  # nothing needed the parser's legacy rewrites
    assert len(strict.skills) == len(card["skills"]) and strict.supported_interfaces[0].protocol_binding == "JSONRPC"


def test_card_declares_the_jsonrpc_interface_skills_and_session_scheme(card, http):
    assert card["supportedInterfaces"] == [
        {"url": f"{IN_PROCESS_URL}{RPC}", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": f"{IN_PROCESS_URL}/mcp", "protocolBinding": "MCP", "protocolVersion": "2025-11-25"}]
    assert card["name"] == "Acme Ceramics" and card["provider"] == {"organization": "Acme Ceramics",
                                                                    "url": IN_PROCESS_URL}
    assert card["documentationUrl"] == f"{IN_PROCESS_URL}/llms.txt"
    assert card["defaultInputModes"] == card["defaultOutputModes"] == ["application/json"]
    assert card["securitySchemes"]["session"]["httpAuthSecurityScheme"]["scheme"] == "Bearer"
    declared = http.get(f"{IN_PROCESS_URL}/.well-known/agents.json", timeout=10).json()["capabilities"]
    assert [s["id"] for s in card["skills"]] == [c["name"] for c in declared]
    for skill, capability in zip(card["skills"], declared):
        assert skill["tags"] and skill["examples"]
        assert json.loads(skill["examples"][0])["skill"] == capability["name"]
        assert ("securityRequirements" in skill) == capability["requires_session"]
    search = next(s for s in card["skills"] if s["id"] == "search")
    assert json.loads(search["examples"][0]) == {"skill": "search", "input": {"q": "Cobalt", "limit": 2}}


def send(base_url, skill, skill_input, headers=None):
    """SendMessage through a2a-sdk's client, which resolves the card and picks the JSON-RPC interface."""
    async def call():
        client = await create_client(base_url, client_config=ClientConfig(streaming=False))
        async with client:
            part = Part(data=ParseDict({"skill": skill, "input": skill_input}, Value()), media_type="application/json")
            request = SendMessageRequest(message=Message(message_id=uuid.uuid4().hex, role=Role.ROLE_USER,
                                                         parts=[part], context_id="ctx-1"))
            context = ClientCallContext(service_parameters=headers) if headers else None
            return [response async for response in client.send_message(request, context=context)]
    # A thread of its own: Playwright's sync API (browser tests) may already run a loop in this one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, call()).result()


def answer_data(responses):
    [response] = responses
    assert response.message.role == Role.ROLE_AGENT and response.message.context_id == "ctx-1"
    [part] = response.message.parts
    assert part.media_type == "application/json"
    return MessageToDict(part)["data"]


def test_send_message_invokes_a_skill_and_answers_a_data_part(live_card, live_server):
    data = answer_data(send(live_server.url, "search", {"q": "celadon", "limit": 3}))
    api = ok_data(AgentClient(live_server.url).get(f"{API}/search", {"q": "celadon", "limit": 3}))
    assert data == json.loads(json.dumps(api, default=float))  # protobuf numbers are doubles
    assert data["results"] and data["total"] == api["total"]


def test_send_message_uses_the_session_bearer_token(live_card, live_server):
    shopper = AgentClient(live_server.url)
    token = shopper.start_session()["session_token"]
    bearer = {"Authorization": f"Bearer {token}"}
    item = json.loads(next(s for s in live_card["skills"] if s["id"] == "detail")["examples"][0])["input"]["id"]

    # The SDK sends numbers as protobuf doubles (2.0): integer parameters still accept them.
    data = answer_data(send(live_server.url, "cart.add", {"item_id": item, "quantity": 2}, bearer))
    assert data["item_id"] == item and data["cart_size"] == 1
    assert shopper.cart()["items"][0]["quantity"] == 2  # the same cart as the agent API's

    with pytest.raises(A2AClientError, match="401"):
        send(live_server.url, "cart.view", {})


def test_refusals_are_json_rpc_errors_with_a2a_details(live_card, live_server):
    with pytest.raises(InvalidParamsError) as refused:
        send(live_server.url, "detail", {})
    assert refused.value.data == {"code": "invalid_params", "status": "400"}
    with pytest.raises(InvalidParamsError) as unknown:
        send(live_server.url, "teleport", {})
    assert unknown.value.data == {"code": "unknown_skill", "status": "400"}

    raw = requests.post(f"{live_server.url}{RPC}", timeout=10, headers=V1, json={
        "jsonrpc": "2.0", "id": 7, "method": "SendMessage",
        "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"data": {"skill": "detail"}}]}},
    }).json()
    assert raw["id"] == 7 and raw["error"]["code"] == -32602
    assert raw["error"]["data"][1] == {"@type": "type.googleapis.com/google.rpc.BadRequest",
                                       "fieldViolations": [{"field": "id", "description": "This parameter is required."}]}


def rpc_body(method, message=None):
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {}}
    if message is not None:
        body["params"]["message"] = {"parts": [{"data": {"skill": "search", "input": {"q": "mug"}}}], **message}
    return json.dumps(body)


USER_MESSAGE = {"messageId": "m1", "role": "ROLE_USER"}


@pytest.mark.parametrize("body, headers, code", [
    ("{not json", V1, -32700),
    ('{"jsonrpc": "1.0", "id": 1, "method": "SendMessage"}', V1, -32600),
    (rpc_body("message/send", USER_MESSAGE), V1, -32601),
    (rpc_body("GetTask"), V1, -32001),
    (rpc_body("CancelTask"), V1, -32001),
    (rpc_body("SendStreamingMessage", USER_MESSAGE), V1, -32004),
    (rpc_body("GetExtendedAgentCard"), V1, -32004),
    (rpc_body("CreateTaskPushNotificationConfig"), V1, -32003),
    (rpc_body("SendMessage"), V1, -32602),
    (rpc_body("SendMessage", {"role": "ROLE_USER"}), V1, -32602),
    (rpc_body("SendMessage", {"messageId": "m1", "role": "ROLE_AGENT"}), V1, -32602),
    (rpc_body("SendMessage", {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "find a mug"}]}), V1,
     -32005),
    (rpc_body("SendMessage", USER_MESSAGE), {"A2A-Version": "0.3"}, -32009),
    (rpc_body("SendMessage", USER_MESSAGE), {}, -32009),  # no header means 0.3
    (rpc_body("message/send", USER_MESSAGE), {"A2A-Version": ""}, -32009),  # a 0.3 client hears why
], ids=["not-json", "not-json-rpc", "a-0.3-method", "get-task", "cancel-task", "streaming", "extended-card",
        "push-config", "no-message", "no-message-id", "agent-role", "text-part", "version-0.3", "no-version",
        "empty-version"])
def test_malformed_requests_get_json_rpc_errors(http, body, headers, code):
    response = http.post(f"{IN_PROCESS_URL}{RPC}", data=body, timeout=10,
                         headers={"Content-Type": "application/json", **headers})
    assert response.status_code == 200
    assert response.json()["error"]["code"] == code, response.json()


def test_list_tasks_answers_an_empty_page_as_this_agent_keeps_no_tasks(http):
    response = http.post(f"{IN_PROCESS_URL}{RPC}", data=rpc_body("ListTasks", {}), timeout=10,
                         headers={"Content-Type": "application/json", **V1})
    assert response.status_code == 200
    assert response.json()["result"] == {"tasks": [], "nextPageToken": "", "pageSize": 0, "totalSize": 0}


def test_a_request_without_an_id_is_a_notification_answered_with_nothing_and_run_never(card, http):
    """JSON-RPC: "The Server MUST NOT reply to a Notification"; the binding defines none, so none runs."""
    shopper = AgentClient(django_client=http.django_client)
    bearer = {"Authorization": f"Bearer {shopper.start_session(agent_name='a2a-notify')['session_token']}", **V1}
    item = ok_data(shopper.get(f"{API}/search", params={"q": "mug"}))["results"][0]["id"]
    body = json.loads(rpc_body("SendMessage", USER_MESSAGE))
    del body["id"]
    body["params"]["message"]["parts"] = [{"data": {"skill": "cart.add", "input": {"item_id": item}}}]
    answer = http.post(f"{IN_PROCESS_URL}{RPC}", json=body, headers=bearer, timeout=10)
    assert (answer.status_code, answer.content) == (204, b"")
    assert answer.headers["Content-Type"] == "application/json; charset=utf-8"  # the binding is JSON, never text/html
    assert ok_data(shopper.get(f"{API}/cart/view"))["items"] == []


def test_a_replayed_answer_carries_the_retrys_id_and_every_answer_has_a_context(card, http):
    """An Idempotency-Key's replay answers the new request's id (JSON-RPC); an answer message has a
    context id, the client's or a new one."""
    shopper = AgentClient(django_client=http.django_client)
    bearer = {"Authorization": f"Bearer {shopper.start_session(agent_name='a2a-replay')['session_token']}",
              "Idempotency-Key": "a2a-replay-id", **V1}
    item = ok_data(shopper.get(f"{API}/search", params={"q": "mug"}))["results"][0]["id"]
    body = json.loads(rpc_body("SendMessage", USER_MESSAGE))
    body["params"]["message"]["parts"] = [{"data": {"skill": "cart.add", "input": {"item_id": item}}}]
    first = http.post(f"{IN_PROCESS_URL}{RPC}", json=body, headers=bearer, timeout=10)
    again = http.post(f"{IN_PROCESS_URL}{RPC}", json={**body, "id": "retry-2"}, headers=bearer, timeout=10)
    assert first.json()["id"] == 1 and first.json()["result"]["message"]["contextId"]
    assert again.headers["Idempotent-Replayed"] == "true" and again.json()["id"] == "retry-2"
    assert again.json()["result"] == first.json()["result"]
    assert ok_data(shopper.get(f"{API}/cart/view"))["items"][0]["quantity"] == 1

    body["params"]["message"]["contextId"] = "ctx-7"
    body["params"]["message"]["parts"] = [{"data": {"skill": "search", "input": {"q": "mug"}}}]
    kept = http.post(f"{IN_PROCESS_URL}{RPC}", json=body, headers=V1, timeout=10)
    assert kept.json()["result"]["message"]["contextId"] == "ctx-7"


class RegistrySecurityScheme(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: str
    location: str | None = None
    name: str | None = None


class RegistrySkill(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    name: str
    description: str
    tags: list[str]
    examples: list[str] | None = None
    inputModes: list[str] | None = None
    outputModes: list[str] | None = None


class RegistryInterface(BaseModel):
    model_config = ConfigDict(extra="forbid")
    preferredTransport: str
    defaultInputModes: list[str]
    defaultOutputModes: list[str]


class RegistryCard(BaseModel):
    """Seed 004's AgentCard, its required fields required, nothing else allowed."""
    model_config = ConfigDict(extra="forbid")
    name: str
    description: str
    url: str
    version: str
    provider: dict[str, str] | None = None
    capabilities: dict[str, bool]
    securitySchemes: list[RegistrySecurityScheme]
    skills: list[RegistrySkill]
    interface: RegistryInterface
    documentationUrl: str | None = None


def card_from_command(*args):
    out = StringIO()
    call_command("agents_card", *args, stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.django_db
def test_registry_format_has_every_field_seed_004_requires():
    card = card_from_command("--format", "registry", "--origin", "https://shop.example")
    registry = RegistryCard.model_validate(card)
    assert registry.url == "https://shop.example/.well-known/agents/a2a"
    assert registry.interface.preferredTransport == "jsonrpc"
    assert registry.securitySchemes[0].model_dump() == {"type": "apiKey", "location": "header", "name": "Authorization"}
    assert set(registry.capabilities) == {"streaming", "pushNotifications", "stateTransitionHistory",
                                          "supportsAuthenticatedExtendedCard"}
    assert [s.id for s in registry.skills][:3] == ["search", "browse", "detail"]
    assert all(s.tags and s.name and s.description for s in registry.skills)


def test_a2a_format_of_the_command_is_the_served_card(card):
    printed = card_from_command("--format", "a2a", "--origin", IN_PROCESS_URL)
    assert printed == card
    validate_proto_required_fields(parse_agent_card(printed))


@pytest.mark.django_db
def test_command_needs_an_origin_when_the_site_has_no_url():
    with pytest.raises(Exception, match="--origin"):
        card_from_command()


def test_a_chunked_body_is_an_invalid_request_naming_length_required(live_server):
    body = rpc_body("SendMessage", USER_MESSAGE).encode()
    response = requests.post(f"{live_server.url}{RPC}", data=iter([body]), timeout=10,
                             headers={"Content-Type": "application/json", **V1})
    assert "Content-Length" not in response.request.headers
    error = response.json()["error"]
    assert error["code"] == -32600, error
    assert error["data"][0]["metadata"]["code"] == "length_required", error
