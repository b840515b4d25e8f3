"""What the JSON-RPC transports (a2a.py, mcp.py) share."""
from agents_protocol.core import codec
from agents_protocol.core.errors import CapabilityError
from agents_protocol.http.parsers import check_declared_length


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
