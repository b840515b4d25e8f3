"""The Model Context Protocol (MCP) server: every enabled capability is a tool.

Streamable HTTP (protocol revision 2025-11-25, the newest with an `initialize` handshake and
sessions; docs/interop.md says why not 2026-07-28) on the WSGI stack: one JSON-RPC message per
POST, answered with one JSON body (`application/json`), never a stream.

    POST initialize            a new agent session: its token is the `Mcp-Session-Id` header
    POST tools/list, tools/call, ping   in that session (Mcp-Session-Id required)
    POST a notification or a response   202, no body
    GET                        405: this server offers no SSE stream
    DELETE                     ends the session and seals its audit trail, like the agent API's

Messages are read and written with the official types (`mcp_types`, what `mcp.types` is).
A capability's refusal is a tool result with `isError` whose text is the envelope plus its
status (JSON); a malformed message is a JSON-RPC error carrying `{"code", "status", "fields"?}`
in `data`. The session's problems are the transport's HTTP statuses (400 without
Mcp-Session-Id, 404 for one unknown, ended or expired), whatever the message, as are 413, 415,
429 and 503.

A thin adapter over the pipeline (http/pipeline.py): the same steps in the same order as the
agent API (authentication through AUTHENTICATION_CLASSES, limits, body guards, parameter
validation, Idempotency-Key, audit), but for resolve() reading the body, which names the call.
Every refusal passes the EXCEPTION_HANDLER; `wire_refusal` writes it in MCP's form.
"""
from urllib.parse import urlsplit

import mcp_types as types
from django.http import HttpResponse
from mcp_types import methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import ValidationError
from rest_framework.response import Response

from agents_protocol.core import codec
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.formats import iso_utc
from agents_protocol.core.invocation import find_capability
from agents_protocol.documents.interop import (
    document_version,
    site_base,
    skill_description,
    skill_title,
)
from agents_protocol.documents.schemas import input_schema, structured_output_schema
from agents_protocol.http.exceptions import database_unavailable
from agents_protocol.http.pipeline import AgentView
from agents_protocol.http.responses import PipelineResponse
from agents_protocol.http.sessions import end_session, inspect_url
from agents_protocol.transports.jsonrpc import MALFORMED_BODY_CODES, request_id_in

SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
# The same headers as WSGI names them: read from request.META, without building request.headers.
SESSION_META, VERSION_META = "HTTP_MCP_SESSION_ID", "HTTP_MCP_PROTOCOL_VERSION"
# The handshake revisions granted: all but 2025-03-26, whose JSON-RPC batches (which it alone has,
# and a server MUST accept) this server does not take; a client offering it is answered the latest.
SERVED_VERSIONS = tuple(version for version in HANDSHAKE_PROTOCOL_VERSIONS if version != "2025-03-26")
# Without the header, the specification says to assume 2025-03-26 unless the server knows better:
# never granting it, this one knows the session negotiated the only granted revision without the header.
VERSION_WITHOUT_HEADER = "2024-11-05"
SERVED_METHODS = ("ping", "tools/list", "tools/call")
# Refusals answered with their own HTTP status (405: GET, as this server offers no SSE stream; 411:
# a body without Content-Length, which the transport says to refuse with an HTTP error status).
HTTP_LEVEL_STATUSES = (405, 411, 413, 415, 429, 503)
SESSION_META_KEY = "agents-protocol/session"


class McpError(CapabilityError):
    """A refusal of the MCP layer itself: a JSON-RPC error with the protocol's code (`rpc_code`),
    answered at `http_status`."""

    def __init__(self, rpc_code, message, code, status=400, http_status=200, headers=None, fields=None):
        super().__init__(status, code, message, fields, headers)
        self.rpc_code, self.http_status = rpc_code, http_status


class McpView(AgentView):
    """The call is named inside the body (its JSON-RPC method, its tool): resolve() reads it, once
    the session is known (Streamable HTTP: the session before anything about the message)."""

    rpc_id = None
    rpc_method = None
    protocol_version = VERSION_WITHOUT_HEADER
    token_header = SESSION_META  # the session's token is the Mcp-Session-Id; Authorization is not this transport's

    def resolve(self, request, *args, **kwargs):
        mcp, http = self.config.mcp, self.django_request  # Django's request: its attributes read without DRF's proxy
        if not (mcp.enabled and http.path == mcp.endpoint):
            raise McpError(types.INVALID_REQUEST, "No MCP server is served at this path; see /llms.txt.",
                           "not_found", 404, 404)
        check_origin(http, self.config, self.origin)
        self.requires_session = True
        if http.method == "DELETE":
            self.protocol_version = requested_version(http)
            self.counts_per_session = False
            return
        check_accept(http)
        message = read_message(request.data)
        if isinstance(message, types.JSONRPCRequest):
            self.rpc_id, self.rpc_method = message.id, message.method
        self.protocol_version = requested_version(http)  # once the id is known, for its error to answer
        if self.rpc_method == "initialize":
            self.requires_session, self.counts_per_session = False, False
            self.initialize_params = initialize_params(message)
            return
        # The session before anything about the message, as Streamable HTTP asks: a request without
        # one is 400, with one not live 404, whatever it says.
        self.authenticate(request)
        if isinstance(message, types.JSONRPCNotification):
            check_notification(message, self.protocol_version)
        if not isinstance(message, types.JSONRPCRequest):
            return  # a notification or a response: 202
        check_request(message, self.protocol_version)
        if self.rpc_method == "tools/call":
            name = message.params["name"]
            self.capability = find_capability(self.config, name)
            if self.capability is None:
                raise McpError(types.INVALID_PARAMS, f"Unknown tool {name!r}; see tools/list.",
                               "unknown_tool", fields={"name": "Must be the name of a tool from tools/list."})
            self.arguments = message.params.get("arguments") or {}

    def post(self, request, *args, **kwargs):
        if self.rpc_method is None:
            return accepted()
        if self.rpc_method == "initialize":
            return self.initialize(request)
        if self.rpc_method == "tools/list":
            return self.result(dumped(types.ListToolsResult(tools=tools(self.config))))
        if self.rpc_method == "ping":
            return self.result(dumped(types.EmptyResult()))
        outcome = self.call_capability(self.arguments)
        if isinstance(outcome, Response):  # a replayed Idempotency-Key: the answer kept, for this request's id
            outcome.data = {**outcome.data, "id": self.rpc_id}
            return outcome
        return self.result(tool_result(outcome))

    def delete(self, request, *args, **kwargs):
        end_session(request.auth, "deleted", method=request.method, path=request.path, response_status=204)
        return HttpResponse(status=204, content_type=codec.JSON_CONTENT_TYPE)

    def initialize(self, request):
        client = self.initialize_params.client_info
        session, raw_token = self.open_session({"agent_name": client.name, "agent_version": client.version})
        config = self.config
        offered = self.initialize_params.protocol_version
        self.protocol_version = offered if offered in SERVED_VERSIONS else LATEST_HANDSHAKE_VERSION
        answer = types.InitializeResult(
            protocol_version=self.protocol_version,
            capabilities=types.ServerCapabilities(tools=types.ToolsCapability(list_changed=False)),
            server_info=types.Implementation(name=config.site.name, version=document_version(config),
                                             website_url=site_base(config, self.origin)),
            instructions=instructions(config),
            meta={SESSION_META_KEY: self.session_meta(session)},
        )
        return self.result(dumped(answer), headers={SESSION_HEADER: raw_token})

    def session_meta(self, session):
        meta = {"session_id": session.public_id, "expires_at": iso_utc(session.expires_at),
                "inspect_url": inspect_url(self.origin, session)}
        if self.config.audit.enabled:
            meta["audit_url"] = self.audit_url(session)
        return meta

    def result(self, data, headers=None):
        """The JSON-RPC response carrying `data`, a result in wire form (dumped() of an official type,
        or tool_result())."""
        return PipelineResponse(self.result_message(data), headers=headers)

    def result_message(self, data):
        """The JSON-RPC result message for `data`, validated against and shaped by the negotiated
        revision's schema. Its structuredContent, which the schema takes as any object, is checked
        as an empty one and written as it is (the codec writes money exactly), not walked twice."""
        structured = data.get("structuredContent")
        shaped = data if structured is None else {**data, "structuredContent": {}}
        wire = methods.serialize_server_result(self.rpc_method, self.protocol_version, shaped)
        if "structuredContent" in wire:
            wire["structuredContent"] = structured
        return {"jsonrpc": "2.0", "id": self.rpc_id, "result": wire}

    def wire_refusal(self, response, exc):
        """A capability's refusal as a tool result with isError; the session's, the message's and
        the transport's as a JSON-RPC error at their HTTP status."""
        refusal = self.refusal
        if isinstance(exc, McpError):
            error = McpError(exc.rpc_code, refusal.message, refusal.code, refusal.status, exc.http_status,
                             fields=refusal.fields)
        elif refusal.status == 401:
            error = session_refusal(refusal)
        elif self.capability is not None and refusal.status not in HTTP_LEVEL_STATUSES:
            response.data = self.result_message(tool_result(refusal_content(refusal), is_error=True))
            response.status_code = 200
            return response
        else:
            error = rpc_refusal(refusal)
        response.data = error_message(self.rpc_id, error)
        response.status_code = error.http_status
        return response


def error_message(rpc_id, error):
    """The JSON-RPC error message for an McpError, in wire form."""
    data = {"code": error.code, "status": error.status}
    if error.fields:
        data["fields"] = error.fields
    body = types.JSONRPCError(jsonrpc="2.0", id=rpc_id,
                              error=types.ErrorData(code=error.rpc_code, message=error.message, data=data))
    wire = body.model_dump(by_alias=True, exclude_none=True)
    # Without the request's id (unreadable, or not a request) it is null, as JSON-RPC 2.0 says and
    # the official SDKs send and require (mcp's JSONRPCError: "required but nullable").
    wire["id"] = rpc_id
    return wire


def unavailable(request):
    """The answer while the shop's database cannot be read, made by AgentsApiMiddleware before any
    view runs: 503 with JSON-RPC's internal error (-32603), for the request's id."""
    error = rpc_refusal(database_unavailable())
    response = HttpResponse(codec.encode(error_message(request_id_in(request), error)), status=error.http_status,
                            content_type=codec.JSON_CONTENT_TYPE)
    for name, value in error.headers.items():
        response[name] = value
    return response


def check_origin(request, config, origin):
    """Refuse a browser's request from another site (DNS rebinding): 403, as the transport requires."""
    sent = request.META.get("HTTP_ORIGIN")
    if sent is None or sent in {origin, _origin_of(config.site.url)}:
        return
    raise McpError(types.INVALID_REQUEST, f"Requests from the origin {sent!r} are not accepted.", "forbidden_origin",
                   403, 403)


def _origin_of(url):
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else None


def check_accept(request):
    accept = request.META.get("HTTP_ACCEPT", "*/*").lower()
    if "application/json" not in accept and "application/*" not in accept and "*/*" not in accept:
        raise McpError(types.INVALID_REQUEST, "Accept application/json (and text/event-stream).", "not_acceptable",
                       406, 406)


def requested_version(request):
    version = request.META.get(VERSION_META)
    if version is None:
        return VERSION_WITHOUT_HEADER
    if version not in SERVED_VERSIONS:
        raise McpError(types.INVALID_REQUEST, f"MCP-Protocol-Version {version!r} is not supported; use "
                       f"{LATEST_HANDSHAKE_VERSION}.", "unsupported_protocol_version", 400, 400)
    return version


def read_message(payload):
    if isinstance(payload, list):
        raise McpError(types.INVALID_REQUEST, "Send one JSON-RPC message per request; batches are not supported.",
                       "invalid_request", 400, 400)
    try:
        message = types.jsonrpc_message_adapter.validate_python(payload, by_name=False)
    except ValidationError:
        raise McpError(types.INVALID_REQUEST, "The body is not a JSON-RPC 2.0 message.", "invalid_request",
                       400, 400) from None
    if isinstance(message, types.JSONRPCNotification) and "id" in payload:  # a notification ignores what it lacks
        raise McpError(types.INVALID_REQUEST, "A request's id must be a string or an integer, not null.",
                       "invalid_request", 400, 400)
    return message


def check_notification(message, version):
    """A notification the revision defines must be well formed (400); any other is accepted, as
    JSON-RPC lets a receiver ignore what it does not know."""
    try:
        methods.parse_client_notification(message.method, version, message.params)
    except KeyError:
        return
    except ValidationError:
        raise McpError(types.INVALID_REQUEST, f"The {message.method} notification is not well formed.",
                       "invalid_request", 400, 400) from None


def initialize_params(message):
    try:
        return types.InitializeRequest.model_validate(message.model_dump(), by_name=False).params
    except ValidationError as error:
        raise invalid_params(error) from None


def check_request(message, version):
    """A request this server serves, well formed by the negotiated revision's schema: its params
    are then read as they are (a tools/call's name, a text, and arguments, an object or none)."""
    if message.method not in SERVED_METHODS:
        raise McpError(types.METHOD_NOT_FOUND, f"Method {message.method!r} is not served here; this server has tools "
                       f"({', '.join(SERVED_METHODS)}).", "method_not_found", 404)
    try:
        methods.validate_client_request(message.method, version, message.params)
    except ValidationError as error:
        raise invalid_params(error) from None


def invalid_params(error):
    fields = {".".join(str(part) for part in e["loc"]) or "params": e["msg"] for e in error.errors()}
    return McpError(types.INVALID_PARAMS, "The request's params are not valid.", "invalid_params", fields=fields)


def session_refusal(refusal):
    """Without Mcp-Session-Id: 400; an unknown, ended or expired one: 404 (the client starts again)."""
    if refusal.code == "session_required":
        return McpError(types.INVALID_REQUEST, f"Send the {SESSION_HEADER} header that initialize returned.",
                        refusal.code, 401, 400, refusal.headers)
    return McpError(types.INVALID_REQUEST, f"This MCP session is not live ({refusal.code}); initialize a new one.",
                    refusal.code, 401, 404, refusal.headers)


def rpc_refusal(refusal):
    """A refusal of the message as a whole: malformed bodies, limits, a failing backend."""
    if refusal.code in MALFORMED_BODY_CODES:
        rpc_code, http_status = MALFORMED_BODY_CODES[refusal.code], 400
    elif refusal.code == "invalid_params":
        rpc_code, http_status = types.INVALID_PARAMS, 200
    else:
        rpc_code, http_status = types.INTERNAL_ERROR if refusal.status >= 500 else types.INVALID_REQUEST, 200
    if refusal.status in HTTP_LEVEL_STATUSES or refusal.status >= 500:
        http_status = refusal.status
    return McpError(rpc_code, refusal.message, refusal.code, refusal.status, http_status, refusal.headers,
                    refusal.fields)


def refusal_content(refusal):
    content = {"ok": False, "error": refusal.message, "code": refusal.code, "status": refusal.status}
    if refusal.fields:
        content["fields"] = refusal.fields
    return content


def dumped(answer):
    """An official result type in wire form: its JSON names, no null fields."""
    return answer.model_dump(by_alias=True, exclude_none=True)


def tool_result(data, is_error=False):
    """A CallToolResult in wire form: the capability's data as structured content and, for clients
    that read text, as JSON text; a refusal as JSON text only, since structured content must match
    the tool's outputSchema (some clients check it even with isError).

    Written as its wire dict rather than built as the version-free model and dumped again;
    McpView.result validates it against the negotiated revision's schema, as every result.
    """
    result = {"content": [{"type": "text", "text": codec.encode(data).decode()}], "isError": is_error}
    if isinstance(data, dict) and not is_error:
        result["structuredContent"] = data
    return result


def accepted():
    return HttpResponse(status=202, content_type=codec.JSON_CONTENT_TYPE)


def tools(config):
    """One tool per enabled capability, described from the configuration."""
    return [
        types.Tool(
            name=capability.name,
            title=skill_title(capability),
            description=skill_description(capability),
            input_schema=input_schema(capability),
            output_schema=structured_output_schema(capability),
            annotations=annotations(capability),
        )
        for capability in config.enabled_capabilities
    ]


def annotations(capability):
    read_only = capability.method == "GET"
    return types.ToolAnnotations(
        title=skill_title(capability),
        read_only_hint=read_only,
        destructive_hint=None if read_only else capability.method == "DELETE",
        idempotent_hint=None if read_only else capability.method in ("PUT", "DELETE"),
        open_world_hint=False,
    )


def instructions(config):
    handoff = [c.name for c in config.enabled_capabilities if c.human_handoff]
    text = (f"The tools of {config.site.name}, one per capability of its agents.json. This MCP session is an agent "
            "session: its calls share one rate limit and one audit trail. Its developer can watch it live at the "
            "inspect_url of this result's _meta.")
    if handoff:
        text += (f" {', '.join(handoff)} returns a link for a human to finish; give it to your user, do not "
                 "follow it.")
    if config.audit.enabled:
        text += (" After the session ends (DELETE), its signed audit trail is at the audit_url of this result's "
                 f"_meta, for Authorization: Bearer <{SESSION_HEADER}>.")
    return text


endpoint = McpView.as_view()
endpoint.unavailable = unavailable  # what AgentsApiMiddleware answers at its routes while the database is down
