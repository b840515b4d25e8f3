"""The A2A JSON-RPC binding (v1.0) declared in the Agent Card: `SendMessage` invokes one skill.

Request: a message whose first data part is `{"skill": "<capability name>", "input": {…}}`.
Answer: `{"message": {…, "role": "ROLE_AGENT", "parts": [{"data": <the capability's data>}]}}`.
A refusal is a JSON-RPC error whose `data` holds A2A's typed details: a google.rpc
ErrorInfo (reason: the protocol's code in capitals; metadata: `code`, `status`) and, for
parameter problems, a google.rpc BadRequest with one field violation per parameter.
Authentication and rate limits are answered at the HTTP level (401, 429), as A2A asks.
No tasks are kept: every call completes in its answer.
"""
import json
import logging
import uuid

from django.views.decorators.csrf import csrf_exempt

from agents_protocol.core.config import current_config
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.invocation import find_capability
from agents_protocol.http.body import read_body
from agents_protocol.http.cors import preflight_response
from agents_protocol.http.documents import request_origin
from agents_protocol.http.invocation import invoke_for_request
from agents_protocol.http.json_http import (
    json_response,
    method_not_allowed,
    over_limit,
    with_rate_limit_headers,
)

logger = logging.getLogger("agents_protocol.transports.a2a")

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
UNSUPPORTED_OPERATION, VERSION_NOT_SUPPORTED = -32004, -32009
HTTP_LEVEL_STATUSES = (401, 429)
ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest"
ERROR_DOMAIN = "agents-protocol"
SUPPORTED_VERSION = "1."


class RpcError(Exception):
    def __init__(self, code, message, data=None, status=200, headers=None):
        super().__init__(message)
        self.code, self.message, self.data, self.status, self.headers = code, message, data, status, headers


@csrf_exempt
def rpc(request):
    if request.method == "OPTIONS":
        return preflight_response(["POST", "OPTIONS"])
    if request.method != "POST":
        return method_not_allowed(["POST"])
    request_id = None
    try:
        payload = _parse(request)
        request_id = payload.get("id")
        response = json_response({"jsonrpc": "2.0", "id": request_id, "result": _dispatch(request, payload)})
    except RpcError as error:
        limited = over_limit(request)
        response = _error_response(request_id, _refusal(limited) if limited else error)
    except Exception:
        logger.exception("Unexpected error in the A2A endpoint")
        response = _error_response(request_id, RpcError(INTERNAL_ERROR, "Something went wrong on our side; retry."))
    return with_rate_limit_headers(request, response)


def _parse(request):
    try:
        payload = json.loads(read_body(request), parse_constant=_reject_constant)
    except CapabilityError as error:
        raise RpcError(INVALID_REQUEST, error.message) from None
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise RpcError(PARSE_ERROR, "The body is not valid JSON.") from None
    if not isinstance(payload, dict) or payload.get("jsonrpc") != "2.0" or not isinstance(payload.get("method"), str):
        raise RpcError(INVALID_REQUEST, "Send one JSON-RPC 2.0 request object with a method.")
    if isinstance(payload.get("id"), bool) or not isinstance(payload.get("id"), (str, int, type(None))):
        raise RpcError(INVALID_REQUEST, "The id must be a string, an integer or null.")
    return payload


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def _dispatch(request, payload):
    if payload["method"] != "SendMessage":
        raise RpcError(METHOD_NOT_FOUND, f"Method {payload['method']!r} not found; this agent serves SendMessage.")
    version = request.headers.get("A2A-Version", "")
    if version and not version.startswith(SUPPORTED_VERSION):
        raise RpcError(VERSION_NOT_SUPPORTED, f"A2A version {version} is not supported; use 1.0.")
    message = _message(payload.get("params"))
    skill, skill_input = _skill_call(message)
    config = current_config()
    capability = find_capability(config, skill)
    if capability is None:
        raise RpcError(INVALID_PARAMS, f"No skill {skill!r}; see the skills of /.well-known/agent-card.json.",
                       _details("unknown_skill", 400, {"skill": "Must be the id of a skill in the Agent Card."}))
    try:
        data = invoke_for_request(request, config, capability, skill_input, request_origin(request))
    except CapabilityError as error:
        raise _refusal(error) from None
    return {"message": _answer(message, data)}


def _message(params):
    message = params.get("message") if isinstance(params, dict) else None
    if not isinstance(message, dict) or not isinstance(message.get("parts"), list):
        raise RpcError(INVALID_PARAMS, "params.message with parts is required.")
    return message


def _skill_call(message):
    """(skill, input) from the first data part of the message."""
    data = next((p["data"] for p in message["parts"] if isinstance(p, dict) and "data" in p), None)
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


def _refusal(error):
    if error.status == 501:
        code = UNSUPPORTED_OPERATION
    else:
        code = INTERNAL_ERROR if error.status >= 500 else INVALID_PARAMS
    status = error.status if error.status in HTTP_LEVEL_STATUSES else 200
    return RpcError(code, error.message, _details(error.code, error.status, error.fields), status, error.headers)


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
    answer = {
        "messageId": uuid.uuid4().hex,
        "role": "ROLE_AGENT",
        "parts": [{"data": data, "mediaType": "application/json"}],
    }
    if isinstance(message.get("contextId"), str):
        answer["contextId"] = message["contextId"]
    return answer


def _error_response(request_id, error):
    body = {"code": error.code, "message": error.message}
    if error.data is not None:
        body["data"] = error.data
    return json_response({"jsonrpc": "2.0", "id": request_id, "error": body}, error.status, error.headers)
