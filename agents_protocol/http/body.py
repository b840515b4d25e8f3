"""Read a request's parameters: GET from the query string, other methods from a JSON object
body (DELETE also from the query string). core.schema checks them."""
import json

from agents_protocol.core.conf import get_setting
from agents_protocol.core.errors import CapabilityError, bad_request

# Deeper bodies are refused before anything walks them recursively.
MAX_NESTING = 32


def read_body(request):
    """The raw body, refusing one larger than MAX_BODY_BYTES with a 413 CapabilityError."""
    limit = get_setting("MAX_BODY_BYTES")
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if not declared.isdigit():
        raise CapabilityError(400, "invalid_request", "The Content-Length header is not a number.")
    if int(declared) > limit:
        raise CapabilityError(413, "payload_too_large", f"The request body must be at most {limit} bytes.")
    return request.body


def raw_params(request, method, body):
    """(values from the body, values from the query string): dicts of name → value."""
    query = {key: request.GET.getlist(key) for key in request.GET}
    if method == "GET":
        return {}, query
    payload = parse_json_body(request, body)
    return payload, query if method == "DELETE" else {}


def parse_json_body(request, body):
    if not body.strip():
        return {}
    # DRF's request.content_type is the whole header, parameters included.
    media_type = (request.content_type or "").split(";")[0].strip().lower()
    if media_type != "application/json" and not media_type.endswith("+json"):
        raise CapabilityError(
            415, "unsupported_media_type", "Send parameters as a JSON object with Content-Type: application/json."
        )
    try:
        payload = json.loads(body, parse_constant=_reject_constant)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise bad_request("The request body is not valid JSON.", "invalid_json") from None
    if not isinstance(payload, dict):
        raise bad_request("The request body must be a JSON object of parameters.", "invalid_json")
    if _nesting_depth(payload) > MAX_NESTING:
        raise bad_request(f"The request body nests deeper than {MAX_NESTING} levels.", "invalid_json")
    return payload


def _nesting_depth(value):
    """How deeply objects and arrays nest (1 for a flat object); iterative, so any depth is safe."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        current, depth = pending.pop()
        if isinstance(current, dict):
            current = list(current.values())
        if isinstance(current, list):
            deepest = max(deepest, depth)
            pending.extend((item, depth + 1) for item in current)
    return deepest


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")
