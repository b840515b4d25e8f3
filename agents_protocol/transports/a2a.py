"""The A2A JSON-RPC binding (v1.0) declared in the Agent Card: `SendMessage` invokes one skill.

Request: a message whose first data part is `{"skill": "<capability name>", "input": {…}}`.
Answer: `{"message": {…, "role": "ROLE_AGENT", "parts": [{"data": <the capability's data>}]}}`.
A refusal is a JSON-RPC error whose `data` holds A2A's typed details: a google.rpc
ErrorInfo (reason: the protocol's code in capitals; metadata: `code`, `status`) and, for
parameter problems, a google.rpc BadRequest with one field violation per parameter.
Authentication and rate limits are answered at the HTTP level (401, 429), as A2A asks.
Requests carry `A2A-Version: 1.0` (without it, 0.3 is assumed, which is refused -32009).
No tasks are kept: every call completes in its answer, and the binding's other methods get
the errors the specification names for that. A request without an `id` is a JSON-RPC
notification: counted as any call, it gets no answer (204) and runs nothing; one whose `id` is
null is refused -32600, as A2A's requests carry a string or an integer. While the database is
down the answer is -32603 with `backend_unavailable` (`unavailable`, which AgentsApiMiddleware
calls).

A thin adapter over the pipeline (http/pipeline.py): the same steps in the same order as the
agent API (authentication, limits, body guards, parameter validation, Idempotency-Key, audit),
but for resolve() reading the body, which names the call. Every refusal passes the
EXCEPTION_HANDLER; `wire_refusal` writes it as a JSON-RPC error.
"""
import uuid

from django.http import HttpResponse
from rest_framework.response import Response

from agents_protocol.core import codec
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.invocation import find_capability
from agents_protocol.http.exceptions import database_unavailable
from agents_protocol.http.pipeline import AgentView
from agents_protocol.http.responses import PipelineResponse
from agents_protocol.transports.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    MALFORMED_BODY_CODES,
    METHOD_NOT_FOUND,
    request_id_in,
)

TASK_NOT_FOUND, PUSH_NOTIFICATION_NOT_SUPPORTED, UNSUPPORTED_OPERATION, CONTENT_TYPE_NOT_SUPPORTED = (
    -32001, -32003, -32004, -32005)
VERSION_NOT_SUPPORTED = -32009
# The binding's other methods, with the error the specification names for an agent whose card
# declares no streaming, push notifications or extended card, and which keeps no tasks (§3.3.4).
UNSERVED_METHODS = {
    "SendStreamingMessage": UNSUPPORTED_OPERATION,
    "SubscribeToTask": UNSUPPORTED_OPERATION,
    "GetExtendedAgentCard": UNSUPPORTED_OPERATION,
    "GetTask": TASK_NOT_FOUND,
    "CancelTask": TASK_NOT_FOUND,
    "CreateTaskPushNotificationConfig": PUSH_NOTIFICATION_NOT_SUPPORTED,
    "GetTaskPushNotificationConfig": PUSH_NOTIFICATION_NOT_SUPPORTED,
    "ListTaskPushNotificationConfigs": PUSH_NOTIFICATION_NOT_SUPPORTED,
    "DeleteTaskPushNotificationConfig": PUSH_NOTIFICATION_NOT_SUPPORTED,
}
HTTP_LEVEL_STATUSES = (401, 405, 429)  # authentication, a method other than POST (with Allow), limits
ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest"
ERROR_DOMAIN = "agents-protocol"
SUPPORTED_VERSION = "1."
VERSION_WITHOUT_HEADER = "0.3"  # what an agent must assume for an absent or empty A2A-Version (§3.6.2)
USER_ROLE = "ROLE_USER"
LIST_TASKS = "ListTasks"
NO_TASKS = {"tasks": [], "nextPageToken": "", "pageSize": 0, "totalSize": 0}


class RpcError(CapabilityError):
    """A refusal of the JSON-RPC layer itself (not of a capability): an invalid request, with its
    JSON-RPC error code and, when it names them, A2A's error details (`data`)."""

    def __init__(self, rpc_code, message, data=None):
        super().__init__(400, "invalid_request", message)
        self.rpc_code, self.data = rpc_code, data


class A2AView(AgentView):
    """The call is named inside the body (its method, its skill): resolve() reads it."""

    rpc_id = None
    message = None
    listing_tasks = notification = False

    def resolve(self, request, *args, **kwargs):
        payload = request.data
        if not isinstance(payload, dict) or payload.get("jsonrpc") != "2.0" or not isinstance(payload.get("method"), str):
            raise RpcError(INVALID_REQUEST, "Send one JSON-RPC 2.0 request object with a method.")
        if "id" not in payload:
            self.notification = True
            return
        if isinstance(payload["id"], bool) or not isinstance(payload["id"], (str, int)):
            raise RpcError(INVALID_REQUEST, "The id must be a string or an integer.")
        self.rpc_id = payload["id"]
        version = request.META.get("HTTP_A2A_VERSION", "").strip() or VERSION_WITHOUT_HEADER
        if not version.startswith(SUPPORTED_VERSION):
            raise RpcError(VERSION_NOT_SUPPORTED, f"A2A version {version} is not supported; send the header "
                           "A2A-Version: 1.0 (without it, 0.3 is assumed).")
        method = payload["method"]
        if method == LIST_TASKS:  # a core operation; this agent answers in the reply and keeps no task
            self.listing_tasks = True
            return
        if method != "SendMessage":
            raise RpcError(UNSERVED_METHODS.get(method, METHOD_NOT_FOUND),
                           f"Method {method!r} is not served; this agent answers SendMessage, in its answer, "
                           "without tasks, streams or push notifications.")
        self.message = _message(payload.get("params"))
        skill, self.skill_input = _skill_call(self.message)
        self.capability = find_capability(self.config, skill)
        if self.capability is None:
            raise RpcError(INVALID_PARAMS, f"No skill {skill!r}; see the skills of /.well-known/agent-card.json.",
                           _details("unknown_skill", 400, {"skill": "Must be the id of a skill in the Agent Card."}))
        self.requires_session = self.capability.requires_session

    def post(self, request, *args, **kwargs):
        if self.notification:  # no answer, and nothing ran: the binding defines no notifications
            return HttpResponse(status=204, content_type=codec.JSON_CONTENT_TYPE)
        if self.listing_tasks:
            return PipelineResponse({"jsonrpc": "2.0", "id": self.rpc_id, "result": NO_TASKS})
        outcome = self.call_capability(self.skill_input)
        if isinstance(outcome, Response):  # a replayed Idempotency-Key: the answer kept, for this request's id
            outcome.data = {**outcome.data, "id": self.rpc_id}
            return outcome
        answer = {"message": _answer(self.message, outcome)}
        return PipelineResponse({"jsonrpc": "2.0", "id": self.rpc_id, "result": answer})

    def wire_refusal(self, response, exc):
        """A JSON-RPC error for the request's id, carrying the refusal in A2A's error details; at
        the refusal's own HTTP status for authentication, a method other than POST and limits."""
        refusal = self.refusal
        if isinstance(exc, RpcError):
            return self.error_answer(response, exc.rpc_code, refusal.message, exc.data, 200)
        status = refusal.status if refusal.status in HTTP_LEVEL_STATUSES else 200
        return self.error_answer(response, _rpc_code(refusal), refusal.message,
                                 _details(refusal.code, refusal.status, refusal.fields), status)

    def error_answer(self, response, code, message, data, status):
        error = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        response.data = {"jsonrpc": "2.0", "id": self.rpc_id, "error": error}
        response.status_code = status
        return response


def unavailable(request):
    """The answer while the shop's database cannot be read, made by AgentsApiMiddleware before any
    view runs: JSON-RPC's internal error (-32603) over HTTP 200, for the request's id."""
    refusal = database_unavailable()
    error = {"code": INTERNAL_ERROR, "message": refusal.message, "data": _details(refusal.code, refusal.status)}
    response = HttpResponse(codec.encode({"jsonrpc": "2.0", "id": request_id_in(request), "error": error}),
                            content_type=codec.JSON_CONTENT_TYPE)
    for name, value in refusal.headers.items():
        response[name] = value
    return response


def _rpc_code(refusal):
    if refusal.code in MALFORMED_BODY_CODES:
        return MALFORMED_BODY_CODES[refusal.code]
    if refusal.status == 501:
        return UNSUPPORTED_OPERATION
    return INTERNAL_ERROR if refusal.status >= 500 else INVALID_PARAMS


def _message(params):
    message = params.get("message") if isinstance(params, dict) else None
    if not isinstance(message, dict) or not isinstance(message.get("parts"), list):
        raise RpcError(INVALID_PARAMS, "params.message with parts is required.")
    if not isinstance(message.get("messageId"), str) or not message["messageId"]:
        raise RpcError(INVALID_PARAMS, "params.message.messageId is required: a string the client makes unique.")
    if message.get("role") != USER_ROLE:
        raise RpcError(INVALID_PARAMS, f"params.message.role must be {USER_ROLE}: the message is the client's.")
    return message


def _skill_call(message):
    """(skill, input) from the first data part of the message."""
    data_parts = [part["data"] for part in message["parts"] if isinstance(part, dict) and "data" in part]
    if message["parts"] and not data_parts:
        raise RpcError(CONTENT_TYPE_NOT_SUPPORTED, 'This agent reads data parts only, not text or files: send '
                       '{"data": {"skill": "<skill id>", "input": {<parameters>}}}.')
    data = data_parts[0] if data_parts else None
    if not isinstance(data, dict) or not isinstance(data.get("skill"), str):
        raise RpcError(INVALID_PARAMS, 'Send a data part {"skill": "<skill id>", "input": {<parameters>}}.')
    skill_input = data.get("input", {})
    if not isinstance(skill_input, dict):
        raise RpcError(INVALID_PARAMS, "The input of the data part must be a JSON object.",
                       _details("invalid_params", 400, {"input": "Must be a JSON object."}))
    return data["skill"], _whole_numbers(skill_input)


def _whole_numbers(value):
    """A data part is a protobuf Value, whose numbers are doubles: SDK clients send 2 as 2.0.

    Whole doubles become integers again, so integer parameters accept them (a number
    parameter accepts either).
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole_numbers(item) for item in value]
    return value


def _details(code, status, fields=None):
    """A2A's error details: why (ErrorInfo), and which parameters (BadRequest)."""
    details = [{
        "@type": ERROR_INFO_TYPE,
        "reason": code.upper(),
        "domain": ERROR_DOMAIN,
        "metadata": {"code": code, "status": str(status)},
    }]
    if fields:
        violations = [{"field": name, "description": problem} for name, problem in fields.items()]
        details.append({"@type": BAD_REQUEST_TYPE, "fieldViolations": violations})
    return details


def _answer(message, data):
    """The answer message, in the client's context, or a new one (a server's message has a context)."""
    context_id = message.get("contextId")
    return {
        "messageId": uuid.uuid4().hex,
        "contextId": context_id if isinstance(context_id, str) and context_id else uuid.uuid4().hex,
        "role": "ROLE_AGENT",
        "parts": [{"data": data, "mediaType": "application/json"}],
    }


rpc = A2AView.as_view()
rpc.unavailable = unavailable  # what AgentsApiMiddleware answers at its route while the database is down
