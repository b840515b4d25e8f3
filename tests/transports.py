"""One adapter per transport, so a test is written once and parametrized over the transports.

Every capability is reachable four ways: its agent API endpoint, `SendMessage` on the A2A
JSON-RPC endpoint, PactSpec invocation (per skill, `POST <endpoint.url>/<skill id>`, and
through the dispatcher, `POST <endpoint.url>` with `{"skill", "input"}`), and `tools/call` on
the MCP server. An adapter calls a capability one way and reads the wire format into one
`Outcome`, checking the format as it reads:

- agent API: `{"ok": true, "data"}` / `{"ok": false, "error", "code", "fields"?}` with the
  refusal's HTTP status;
- PactSpec: the capability's data itself on success, the agent API's error envelope and
  status on refusal;
- A2A: a JSON-RPC result `{"message": {"role": "ROLE_AGENT", "parts": [{"data": …}]}}`, or a
  JSON-RPC error whose `data[0]` is a google.rpc ErrorInfo (reason = the code in capitals,
  metadata `{"code", "status"}`) and, for parameters, a google.rpc BadRequest; HTTP 401 and
  429 for those refusals, else 200;
- MCP: a JSON-RPC result, the CallToolResult: `structuredContent` (and the text) is the data, or
  with `isError` the text is the envelope plus its `status` (HTTP 200); or a JSON-RPC error whose `data` is `{"code", "status",
  "fields"?}`: the session's refusals at the transport's HTTP statuses (400 without a session, 404
  for one not live), 405, 413, 415, 429 and 503 at their own, a malformed message at 400, other
  message errors at 200. The session token travels as the Mcp-Session-Id, whichever header the
  test names; MCP has no sessionless calls.

Whatever the transport, an answer is never a 5xx, an HTML page, or JSON-RPC's -32603 (internal error).

An adapter calls over real HTTP (`TRANSPORTS[name](live_server.url)`) or in process through
Django's test client (`TRANSPORTS[name](client)`: no sockets, in the test's rolled-back
transaction). Used by tests/test_pipeline_transports.py, tests/test_hostile_input.py and others.
"""
import json
from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace
from urllib.parse import quote, urlencode, urlsplit

import requests

TIMEOUT = 10
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, INTERNAL_ERROR, UNSUPPORTED_OPERATION = (
    -32700, -32600, -32602, -32603, -32004)
HTTP_LEVEL_STATUSES = (401, 429)  # what A2A answers with the refusal's own HTTP status
MALFORMED_STATUS = {"invalid_json": 400, "payload_too_large": 413, "unsupported_media_type": 415}
MALFORMED_RPC_CODE = {"invalid_json": PARSE_ERROR, "payload_too_large": INVALID_REQUEST,
                      "unsupported_media_type": INVALID_REQUEST}


@dataclass
class Answer:
    """What came back over the wire: `headers` is case-insensitive."""
    status_code: int
    headers: object
    content: bytes


class OverHttp:
    """Real HTTP to a live server (requests)."""

    def __init__(self, base_url):
        self.base_url = base_url

    def send(self, method, url, body, headers):
        """`url`: absolute, or a path on the server. Header values go as Latin-1 bytes, as a
        client may send them (requests refuses some str values, such as a leading U+00A0)."""
        url = url if "://" in url else self.base_url + url
        headers = {name: value.encode("latin-1") for name, value in headers.items()}
        response = requests.request(method, url, data=body, headers=headers, timeout=TIMEOUT)
        return Answer(response.status_code, response.headers, response.content)


class InProcess:
    """Django's test client: the same request through the WSGI handler, without a socket."""

    def __init__(self, client):
        self.client = client

    def send(self, method, url, body, headers):
        """`url`: a path (with its query), or an absolute URL of the site, whose host is ignored."""
        parts = urlsplit(url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        headers = dict(headers)
        content_type = headers.pop("Content-Type", "application/octet-stream")
        response = self.client.generic(method, path, body, content_type=content_type, headers=headers)
        return Answer(response.status_code, response.headers, response.content)


def wire_for(target):
    return OverHttp(target) if isinstance(target, str) else InProcess(target)


@lru_cache
def discovered(base_url):
    """Where each transport serves what on a live server, read once from its published documents."""
    return read_documents(OverHttp(base_url))


def read_documents(wire):
    """Where each transport serves what, read from the site's published documents."""
    def get(path):
        answer = wire.send("GET", path, b"", {})
        assert answer.status_code == 200, answer.content[:500]
        return json.loads(answer.content)

    agents, pactspec, card = (get("/.well-known/agents.json"), get("/.well-known/pactspec.json"),
                              get("/.well-known/agent-card.json"))
    assert len(pactspec["skills"]) == len(agents["capabilities"])  # one skill per capability, in order
    return SimpleNamespace(
        capabilities={c["name"]: c for c in agents["capabilities"]},
        session=agents["session"],
        skill_ids={c["name"]: s["id"] for c, s in zip(agents["capabilities"], pactspec["skills"])},
        pactspec_url=pactspec["endpoint"]["url"],
        a2a_url=card["supportedInterfaces"][0]["url"],
        mcp_url=next(i["url"] for i in card["supportedInterfaces"] if i["protocolBinding"] == "MCP"),
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
    sessionless = True  # a capability that needs no session answers without one

    def __init__(self, target):
        """`target`: a live server's base URL (real HTTP), or Django's test client (in process;
        the site's documents are read again for each adapter, as the configuration may differ)."""
        self.wire = wire_for(target)
        self.site = discovered(target) if isinstance(target, str) else read_documents(self.wire)

    def call(self, capability, params=None, token=None, header="Authorization", headers=None, raw_input=None,
             content_type="application/json"):
        """Call `capability` with `params`, or with `raw_input`: bytes standing for the JSON text of its
        input object, put where this transport carries the input (the whole body for the agent API and
        a PactSpec skill URL, `input` for the dispatcher, the data part's `input` for A2A)."""
        if raw_input is None:
            raw_input = json.dumps(params or {}).encode()
        sent = {"Content-Type": content_type, **token_header(token, header), **(headers or {})}
        answer = self.send(capability, dict(params or {}), raw_input, sent)
        assert answer.status_code < 500, f"{self.name}: {answer.status_code} {answer.content[:500]}"
        content = answer.headers.get("Content-Type", "")
        assert content.split(";")[0] == "application/json", f"{self.name}: {content} {answer.content[:500]}"
        outcome = Outcome(self.name, answer.status_code, answer.headers, json.loads(answer.content))
        self.read(outcome)
        return outcome

    def post(self, url, body, headers):
        return self.wire.send("POST", url, body, headers)

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

    def session_refusal_status(self, code):
        """The HTTP status of a 401 refusal (`code`: session_required, session_invalid …) on the wire."""
        return 401


class AgentApi(Transport):
    """The agent API: the capability's endpoint and method; `:id` from the parameters, the query
    string for GET (strings as they are, other values as JSON text), the body otherwise. Also
    calls the session endpoint, as "session.create"."""
    name = "api"

    def send(self, capability, params, raw_input, headers):
        if capability == "session.create":  # the session endpoint: not a capability, the agent API only
            return self.wire.send("POST", self.site.session["create"], raw_input, headers)
        declared = self.site.capabilities[capability]
        path = declared["endpoint"]
        if ":id" in path:  # an empty id would be another path: a space
            path = path.replace(":id", quote(str(params.pop("id", "")), safe="") or "%20")
        if declared["method"] == "GET":
            query = urlencode({name: value if isinstance(value, str) else json.dumps(value)
                               for name, value in params.items()})
            return self.wire.send("GET", f"{path}?{query}" if query else path, b"", headers)
        return self.wire.send(declared["method"], path, raw_input, headers)

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
        return self.post(self.site.a2a_url, body, {"A2A-Version": "1.0", **headers})

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


class Mcp(Transport):
    """MCP: tools/call on the MCP server, in the session whose token is the Mcp-Session-Id."""
    name = "mcp"
    sessionless = False
    TOKEN_HEADERS = ("Authorization", "X-Session-Token", "X-Agent-Session")
    HTTP_LEVEL_STATUSES = (405, 411, 413, 415, 429, 503)
    MALFORMED_CODES = ("invalid_json", "invalid_request", "payload_too_large", "unsupported_media_type", "length_required")

    def send(self, capability, params, raw_input, headers):
        headers = dict(headers)
        tokens = [headers.pop(name) for name in self.TOKEN_HEADERS if name in headers]
        if tokens:
            scheme, _, rest = tokens[0].partition(" ")
            headers["Mcp-Session-Id"] = rest if scheme == "Bearer" else tokens[0]
        headers.update({"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"})
        body = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":' + json.dumps(capability).encode()
                + b',"arguments":' + raw_input + b"}}")
        return self.post(self.site.mcp_url, body, headers)

    def read(self, outcome):
        body = outcome.body
        assert isinstance(body, dict) and body.get("jsonrpc") == "2.0", body
        assert ("result" in body) != ("error" in body), body
        if "result" in body:
            assert outcome.http_status == 200, body
            result = body["result"]
            assert isinstance(result["content"], list) and result["content"][0]["type"] == "text", body
            content = json.loads(result["content"][0]["text"])
            if result["isError"]:  # the envelope as text only: structured content must match the outputSchema
                assert "structuredContent" not in result, body
                assert set(content) <= {"ok", "error", "code", "status", "fields"} and content["ok"] is False, body
                assert isinstance(content["error"], str) and content["error"], body
                outcome.status, outcome.code, outcome.fields = content["status"], content["code"], content.get("fields")
                assert 400 <= outcome.status < 500 and outcome.status not in (401, *self.HTTP_LEVEL_STATUSES), body
            else:
                assert result["structuredContent"] == content, body
                outcome.ok, outcome.data, outcome.status = True, content, 200
            return
        error = body["error"]
        assert isinstance(error["code"], int) and isinstance(error["message"], str) and error["message"], body
        outcome.rpc_code = error["code"]
        assert outcome.rpc_code != INTERNAL_ERROR, f"-32603 (internal error) for a call the server can answer: {body}"
        assert "id" in body, f"an error always names the request's id, null when unreadable: {body}"
        details = error["data"]
        assert set(details) <= {"code", "status", "fields"}, body
        outcome.code, outcome.status, outcome.fields = details["code"], details["status"], details.get("fields")
        assert outcome.http_status == self.http_status_of(outcome), f"HTTP {outcome.http_status}: {body}"

    def http_status_of(self, outcome):
        if outcome.status == 401:
            return self.session_refusal_status(outcome.code)
        if outcome.status in self.HTTP_LEVEL_STATUSES:
            return outcome.status
        return 400 if outcome.code in self.MALFORMED_CODES else 200

    def session_refusal_status(self, code):
        """400 without an Mcp-Session-Id, 404 for one unknown, ended or expired (Streamable HTTP)."""
        return 400 if code == "session_required" else 404

    def assert_malformed(self, outcome, code):
        """-32700 for a body that is not the JSON accepted (id null), -32600 for one too large or not sent
        as application/json; at the agent API's HTTP status."""
        assert not outcome.ok, outcome.body
        assert (outcome.status, outcome.code) == (MALFORMED_STATUS[code], code), outcome.body
        assert outcome.rpc_code == MALFORMED_RPC_CODE[code] and outcome.http_status == MALFORMED_STATUS[code], (
            outcome.body)
        if outcome.rpc_code == PARSE_ERROR:
            assert outcome.body["id"] is None, outcome.body

    def stable(self, body):
        return body


TRANSPORTS = {"api": AgentApi, "a2a": A2A, "pactspec": PactSpec, "pactspec-dispatch": PactSpecDispatch, "mcp": Mcp}


def refused(outcome, status, code, field=None):
    """A refusal with the protocol's status and code (naming `field` among its parameters)."""
    assert not outcome.ok, f"{outcome.transport}: {outcome.body}"
    assert (outcome.status, outcome.code) == (status, code), f"{outcome.transport}: {outcome.body}"
    if field is not None:
        assert field in (outcome.fields or {}), f"{outcome.transport}: {outcome.body}"
    if outcome.transport == "a2a" and code == "invalid_params":
        assert outcome.rpc_code == INVALID_PARAMS and outcome.fields, outcome.body
