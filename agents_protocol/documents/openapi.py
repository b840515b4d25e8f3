"""An OpenAPI 3.1 document of the whole agent API, from the same configuration as agents.json.

Every enabled capability at its configured path and method (`:id` → `{id}`), the session
endpoints, the bearer session token, the envelope around every answer and the error
responses. GET takes parameters in the query string, other methods (DELETE too) a JSON
object body; path parameters come from the endpoint template.
"""
from agents_protocol.core.session_params import SESSION_CREATE_PARAMS
from agents_protocol.documents.interop import (
    AGENTS_JSON_PATH,
    document_version,
    is_email,
    own_limit_phrase,
    site_base,
)
from agents_protocol.documents.schemas import (
    ERROR,
    object_schema,
    output_schema,
    param_schema,
    success_envelope,
)

OPENAPI_VERSION = "3.1.0"
QUERY_METHODS = ("GET",)  # DELETE takes a JSON body as POST does (its query string is accepted too)
SESSION_SECURITY = [{"bearerSession": []}, {"sessionTokenHeader": []}, {"agentSessionHeader": []}]
ERROR_RESPONSES = {
    "BadRequest": "Invalid parameters or request (`invalid_params` comes with `fields`)",
    "Unauthorized": "Session missing, invalid, expired or ended: create a new session",
    "NotFound": "Unknown item, category or endpoint",
    "PayloadTooLarge": "The request body is too large",
    "UnsupportedMediaType": "The body is not a JSON object sent as application/json",
    "UriTooLong": "The path and query string are longer than the site accepts (`uri_too_long`)",
    "HeadersTooLarge": "The header block is larger than the site accepts (`headers_too_large`)",
    "TooManyRequests": "Rate limit or session limit reached; wait Retry-After seconds",
    "NotImplemented": "This capability has no handler on this site yet",
    "TooEarly": "The session is still live: its audit trail is sealed when it ends",
    "Conflict": "A request with this Idempotency-Key is still in flight, or the cart is empty or frozen for checkout",
    "IdempotencyConflict": "This Idempotency-Key was already used for a different request",
    "Unavailable": "The database or cache is unavailable; retry after Retry-After seconds",
    "Error": "Any other refusal or failure, in the same envelope",
}
HEADERS = {
    "Unauthorized": {"WWW-Authenticate": {"schema": {"type": "string"}}},
    "TooManyRequests": {"Retry-After": {"schema": {"type": "integer", "minimum": 1}}},
    "TooEarly": {"Retry-After": {"schema": {"type": "integer", "minimum": 1}}},
    "Conflict": {"Retry-After": {"schema": {"type": "integer", "minimum": 1}}},
    "Unavailable": {"Retry-After": {"schema": {"type": "integer", "minimum": 1}}},
}
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Send a POST again with the same key and body to get the first answer back "
                   "(Idempotent-Replayed: true) instead of running it twice. Kept 24 hours.",
    "schema": {"type": "string", "pattern": "^[!-+\\--~]{1,255}$",  # http/idempotency.py KEY_FORMAT
               "description": "1 to 255 visible ASCII characters without commas, such as a UUID"},
}
SESSION_CREATED = {
    "type": "object",
    "required": ["session_token", "session_id", "expires_at", "ttl_seconds", "capabilities", "audit"],
    "properties": {
        "session_token": {"type": "string", "description": "Send as Authorization: Bearer <token>"},
        "session_id": {"type": "string", "description": "Public id, used in the audit URL"},
        "expires_at": {"type": "string", "format": "date-time"},
        "ttl_seconds": {"type": "integer"},
        "capabilities": {"type": "array", "items": {"type": "string"},
                         "description": "The session-required capabilities available in this session"},
        "audit": {"type": "boolean",
                  "description": "true when the session's calls are recorded in a signed audit trail"},
        "inspect_url": {"type": "string", "format": "uri",
                        "description": "A page for the agent's developer that shows this session's calls live"},
    },
}
AUDIT_ARTIFACT = {
    "type": "object",
    "description": "The session's signed audit trail (format agents-protocol-audit/1)",
    "required": ["format", "session_id", "events", "root_hash", "algorithm", "canonicalization",
                 "key_id", "public_key", "signature"],
    "properties": {
        "format": {"type": "string"},
        "session_id": {"type": "string"},
        "events": {"type": "array", "items": {"type": "object"}},
        "root_hash": {"type": "string"},
        "algorithm": {"const": "Ed25519"},
        "canonicalization": {"const": "RFC8785"},
        "key_id": {"type": "string"},
        "public_key": {"type": "string", "description": "Base64 of the DER SubjectPublicKeyInfo"},
        "signature": {"type": "string"},
    },
}
SESSION_ENDED = {
    "type": "object",
    "required": ["ended", "session_id", "ended_at", "audit_url"],
    "properties": {
        "ended": {"const": True},
        "session_id": {"type": "string"},
        "ended_at": {"type": "string", "format": "date-time"},
        "audit_url": {"type": ["string", "null"], "description": "Where the audit artifact is, when audit is on"},
    },
}


def build_openapi(config, origin):
    base = site_base(config, origin)
    paths = {}
    for capability in config.enabled_capabilities:
        _path_item(paths, capability.endpoint)[capability.method.lower()] = _operation(capability)
    _path_item(paths, config.session.create_endpoint)["post"] = _session_create()
    _path_item(paths, config.session.delete_endpoint)["delete"] = _session_delete()
    if config.audit.enabled:
        _path_item(paths, config.audit.endpoint)["get"] = _audit(config.audit.endpoint)
    return {
        "openapi": OPENAPI_VERSION,
        "info": _info(config, base),
        "servers": [{"url": base}],
        "paths": paths,
        "components": _components(config),
    }


def openapi_path(template):
    return "/".join(f"{{{s[1:]}}}" if s.startswith(":") else s for s in template.split("/"))


def _path_item(paths, template):
    return paths.setdefault(openapi_path(template), {})


def _info(config, base):
    info = {
        "title": f"{config.site.name} agent API",
        "version": document_version(config),
        "description": (
            f"The agents protocol API of {config.site.name}, as declared in {base}{AGENTS_JSON_PATH}. "
            'Every answer is the envelope {"ok": true, "data": …} or '
            '{"ok": false, "error": "<sentence>", "code": "<machine code>", "fields"?: {…}}.'
        ),
    }
    contact = config.site.contact
    if contact:
        info["contact"] = {"email": contact} if is_email(contact) else {"url": contact}
    return info


HANDOFF_NOTE = "Returns a URL for a human to complete; agents must not follow it."


def _operation(capability):
    path_names = _path_names(capability.endpoint)
    path_params = [_path_parameter(name, capability.params) for name in path_names]
    other_params = [p for p in capability.params if p.name not in path_names]
    operation = {
        "operationId": capability.name,
        "summary": capability.description or capability.name,
        "tags": [capability.name.split(".")[0]],
    }
    notes = [note for note in (HANDOFF_NOTE if capability.human_handoff else "", own_limit_phrase(capability)) if note]
    if notes:
        operation["description"] = " ".join(notes)
    if capability.method in QUERY_METHODS:
        operation["parameters"] = path_params + [_query_parameter(p) for p in other_params]
    else:
        operation["parameters"] = path_params + ([IDEMPOTENCY_KEY] if capability.method == "POST" else [])
        operation["requestBody"] = _json_body(object_schema(other_params), any(p.required for p in other_params))
    if capability.requires_session:
        operation["security"] = SESSION_SECURITY
    operation["responses"] = {
        "200": _success("The capability's data", output_schema(capability)),
        **_errors(capability.method, capability.requires_session),
    }
    return operation


def _path_names(template):
    return [s[1:] for s in template.split("/") if s.startswith(":")]


def _path_parameter(name, params):
    declared = next((p for p in params if p.name == name), None)
    schema = param_schema(declared) if declared else {"type": "string"}
    return {"name": name, "in": "path", "required": True, "schema": schema}


def _query_parameter(param):
    parameter = {"name": param.name, "in": "query", "required": param.required, "schema": param_schema(param)}
    if param.description:
        parameter["description"] = param.description
    return parameter


def _json_body(schema, required):
    return {"required": required, "content": {"application/json": {"schema": schema}}}


def _success(description, data_schema):
    return {"description": description, "content": {"application/json": {"schema": success_envelope(data_schema)}}}


def _errors(method, requires_session):
    names = {"400": "BadRequest", "404": "NotFound", "414": "UriTooLong", "429": "TooManyRequests",
             "431": "HeadersTooLarge"}
    if requires_session:
        names["401"] = "Unauthorized"
    if method != "GET":
        names.update({"409": "Conflict", "413": "PayloadTooLarge", "415": "UnsupportedMediaType"})
    if method == "POST":
        names["422"] = "IdempotencyConflict"
    names.update({"501": "NotImplemented", "503": "Unavailable", "default": "Error"})
    return {status: {"$ref": f"#/components/responses/{name}"} for status, name in names.items()}


def _session_create():
    body = object_schema(SESSION_CREATE_PARAMS)
    return {
        "operationId": "session.create",
        "summary": "Create a session; its token authorizes the capabilities that need one",
        "tags": ["session"],
        "parameters": [],  # no Idempotency-Key: its replay would hand the token to another client
        "requestBody": _json_body(body, False),
        "responses": {
            "201": _success("The new session", SESSION_CREATED),
            # No Idempotency-Key here, so neither 409 nor 422.
            **{status: error for status, error in _errors("POST", False).items() if status not in ("409", "422")},
        },
    }


def _session_delete():
    return {
        "operationId": "session.delete",
        "summary": "End the session of the token sent",
        "tags": ["session"],
        "security": SESSION_SECURITY,
        "responses": {"200": _success("The ended session", SESSION_ENDED), **_errors("DELETE", True)},
    }


def _audit(template):
    return {
        "operationId": "audit",
        "summary": "The signed audit trail of an ended session, for the holder of its token",
        "tags": ["audit"],
        "security": SESSION_SECURITY,
        "parameters": [_path_parameter(name, ()) for name in _path_names(template)],
        "responses": {
            "200": _success("The sealed artifact", AUDIT_ARTIFACT),
            "425": {"$ref": "#/components/responses/TooEarly"},
            **_errors("GET", True),
        },
    }


def _components(config):
    return {
        "schemas": {"Error": ERROR},
        "responses": {
            name: {
                "description": description,
                **({"headers": HEADERS[name]} if name in HEADERS else {}),
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            }
            for name, description in ERROR_RESPONSES.items()
        },
        "securitySchemes": {
            "bearerSession": {
                "type": "http",
                "scheme": "bearer",
                "description": f"The session_token from POST {config.session.create_endpoint}",
            },
            "sessionTokenHeader": {"type": "apiKey", "in": "header", "name": "X-Session-Token"},
            "agentSessionHeader": {"type": "apiKey", "in": "header", "name": "X-Agent-Session"},
        },
    }
