"""What the JSON-RPC transports (a2a.py, mcp.py) share."""
from agents_protocol.core import codec
from agents_protocol.core.errors import CapabilityError
from agents_protocol.http.parsers import check_declared_length

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
# The JSON-RPC error of a refusal of the body itself (its size, type or JSON), whoever refused it.
MALFORMED_BODY_CODES = {"invalid_json": PARSE_ERROR, "payload_too_large": INVALID_REQUEST,
                        "unsupported_media_type": INVALID_REQUEST, "invalid_request": INVALID_REQUEST,
                        "method_not_allowed": INVALID_REQUEST, "length_required": INVALID_REQUEST}


def request_id_in(request):
    """The id of the JSON-RPC request in the Django request's body, for an answer made before the
    transport reads the message (a database outage); None when the body holds no usable one."""
    try:
        check_declared_length(request)
        payload = codec.decode(request.body)
    except (CapabilityError, codec.MalformedJSON, OSError):
        return None
    rpc_id = payload.get("id") if isinstance(payload, dict) else None
    return rpc_id if isinstance(rpc_id, (str, int)) and not isinstance(rpc_id, bool) else None
