"""The capability schema: which parameter descriptors are valid (seed 000), and checking a
call's values against them."""
import math
import re

from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator, URLValidator
from jsonschema import Draft7Validator

from agents_protocol.core.errors import bad_request

# Integers beyond this lose precision in JavaScript clients and overflow database columns.
MAX_SAFE_INTEGER = 2**53 - 1
INTEGER_TEXT = re.compile(r"^[+-]?\d{1,16}$")
TRUE_TEXT, FALSE_TEXT = {"true", "1", "yes"}, {"false", "0", "no"}

TYPES = ("string", "number", "integer", "boolean", "array", "object")

_PYTHON_TYPES = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def value_has_type(value, type_name):
    """True when a decoded JSON value is of the descriptor type (booleans are not numbers)."""
    if isinstance(value, bool) and type_name != "boolean":
        return False
    return isinstance(value, _PYTHON_TYPES[type_name])


def descriptor_errors(type_name, default, enum, items):
    """Field errors for one descriptor, as a dict ready for ValidationError."""
    if type_name not in TYPES:
        return {"type": f"Type must be one of: {', '.join(TYPES)}."}
    errors = {}
    if enum is not None:
        if not isinstance(enum, list) or not enum:
            errors["enum"] = "Enum must be a non-empty JSON list."
        elif not all(value_has_type(value, type_name) for value in enum):
            errors["enum"] = f"Every enum value must be of type {type_name}."
        elif len({repr(value) for value in enum}) != len(enum):
            errors["enum"] = "Enum values must be distinct."
    if default is not None:
        if not value_has_type(default, type_name):
            errors["default"] = f"Default must be of type {type_name}."
        elif isinstance(enum, list) and "enum" not in errors and default not in enum:
            errors["default"] = "Default must be one of the enum values."
    if items is not None:
        if type_name != "array":
            errors["items"] = "Items only applies to parameters of type array."
        elif not isinstance(items, dict) or not Draft7Validator(Draft7Validator.META_SCHEMA).is_valid(items):
            errors["items"] = "Items must be a JSON Schema object, e.g. {\"type\": \"string\"}."
    return errors


def is_email_or_url(value):
    for validator in (EmailValidator(), URLValidator(schemes=["http", "https"])):
        try:
            validator(value)
            return True
        except ValidationError:
            continue
    return False


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
