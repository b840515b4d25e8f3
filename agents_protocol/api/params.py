"""Read a request's parameters and check them against the capability's descriptors.

GET takes them from the query string, other methods from a JSON object body (DELETE
also from the query string). Path parameters (`:id`) win over both. Values from a
query string or a path are text and are converted to the declared type; JSON values
must already have it. Unknown parameters are ignored.
"""
import json
import math
import re

from jsonschema import Draft7Validator

from ..conf import get_setting
from ..errors import CapabilityError, bad_request
from ..params import value_has_type

# Integers beyond this lose precision in JavaScript clients and overflow database columns.
MAX_SAFE_INTEGER = 2**53 - 1
# Deeper bodies are refused before anything walks them recursively.
MAX_NESTING = 32
INTEGER_TEXT = re.compile(r"^[+-]?\d{1,16}$")
TRUE_TEXT, FALSE_TEXT = {"true", "1", "yes"}, {"false", "0", "no"}


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


def validate_params(descriptors, body, query, path):
    """Checked and converted values for every declared parameter, defaults applied."""
    values, errors = {}, {}
    for descriptor in descriptors:
        name = descriptor.name
        try:
            value = _pick(descriptor, body, query, path)
        except ValueError as error:
            errors[name] = str(error)
            continue
        if value is None:
            if descriptor.required:
                errors[name] = "This parameter is required."
            elif descriptor.default is not None:
                values[name] = descriptor.default
            continue
        problem = _problem(descriptor, value)
        if problem:
            errors[name] = problem
        else:
            values[name] = value
    if errors:
        summary = "; ".join(f"{name}: {message}" for name, message in errors.items())
        raise bad_request(f"Invalid parameters ({summary})", "invalid_params", fields=errors)
    return values


def _pick(descriptor, body, query, path):
    name = descriptor.name
    if name in path:
        return _from_text(descriptor, [path[name]])
    if name in body:
        return body[name]
    if name in query:
        return _from_text(descriptor, query[name])
    return None


def _from_text(descriptor, texts):
    """Convert query or path text to the declared type; ValueError says what is wrong."""
    if descriptor.type == "array":
        return [_scalar_from_text(descriptor.items or {}, text) for text in texts]
    if len(texts) != 1:
        raise ValueError("Send this parameter once.")
    return _scalar_from_text({"type": descriptor.type}, texts[0])


def _scalar_from_text(schema, text):
    kind = schema.get("type", "string")
    if kind == "integer":
        if not INTEGER_TEXT.match(text.strip()):
            raise ValueError("Must be an integer.")
        return int(text)
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise ValueError("Must be a number.") from None
        if not math.isfinite(number):
            raise ValueError("Must be a finite number.")
        return number
    if kind == "boolean":
        if text.lower() not in TRUE_TEXT | FALSE_TEXT:
            raise ValueError("Must be true or false.")
        return text.lower() in TRUE_TEXT
    if kind in {"array", "object"}:
        raise ValueError(f"An {kind} cannot be sent in a query string; send a JSON body.")
    return text


def _problem(descriptor, value):
    if not value_has_type(value, descriptor.type):
        return f"Must be of type {descriptor.type}."
    if _contains_nul(value):
        return "Must not contain NUL characters."
    if descriptor.type in {"integer", "number"} and abs(value) > MAX_SAFE_INTEGER:
        return f"Must be between {-MAX_SAFE_INTEGER} and {MAX_SAFE_INTEGER}."
    if descriptor.enum is not None and value not in descriptor.enum:
        return f"Must be one of: {', '.join(str(v) for v in descriptor.enum)}."
    if descriptor.type == "array" and descriptor.items:
        validator = Draft7Validator(descriptor.items)
        bad = next((index for index, item in enumerate(value) if not validator.is_valid(item)), None)
        if bad is not None:
            return f"Item {bad} does not match the declared item schema."
    return None


def _contains_nul(value):
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(_contains_nul(item) for item in value)
    if isinstance(value, dict):
        return any(_contains_nul(k) or _contains_nul(v) for k, v in value.items())
    return False
