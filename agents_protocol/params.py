"""Rules for parameter descriptors (seed 000): which types exist and what a valid descriptor is."""
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator, URLValidator
from jsonschema import Draft7Validator

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
