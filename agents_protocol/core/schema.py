"""The capability schema: which parameter descriptors are valid (seed 000), and checking a
call's values against them.

A parameter's rules are declared once, in its descriptor (a CapabilityParam row, loaded
into the configuration snapshot as a ParamSpec): type, required, default, enum, items,
minimum/maximum (integer and number), min_length/max_length (string) and format (string:
email, uri, date-time). `compile_param` turns one descriptor into a `CompiledParam` once per
configuration snapshot (ParamSpec caches it): the checks `validate_params` runs on every
call, the JSON Schema fragment OpenAPI, PactSpec and A2A publish (`param_json_schema`), and
the phrase agents.json and llms.txt add to the description, whose schema has no keys for
bounds (`param_description`).

Whitespace: a string parameter that declares a min_length counts its min_length on the
trimmed text, and the handler receives the trimmed text, so "   " is not a 1-character search
query. Whitespace is what `\\s` matches in ECMA-262, the regex dialect of the pattern published
for such text (ECMA_WHITESPACE). Every other rule (max_length, format, enum) applies to the text
as sent, as the published maxLength, format and enum say.

Published as enforced, also where no keyword is declared: text holding NUL is refused (PostgreSQL
stores none), which every string's pattern says (NO_NUL); numbers beyond JavaScript's safe
integers are refused, so a number's published minimum and maximum never go beyond them; a null
is a value of no declared type, refused like any other (absent is not null).
"""
import math
import re
from datetime import datetime

from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator, URLValidator, validate_email

from agents_protocol.core.errors import bad_request

# Integers beyond this lose precision in JavaScript clients and overflow database columns.
MAX_SAFE_INTEGER = 2**53 - 1
INTEGER_TEXT = re.compile(r"^[+-]?[0-9]{1,16}$")  # ASCII digits: \d would take "５" and "٥" too
TRUE_TEXT, FALSE_TEXT = {"true", "1", "yes"}, {"false", "0", "no"}

TYPES = ("string", "number", "integer", "boolean", "array", "object")
# What a value of another type is told, sent as JSON or as query text alike.
TYPE_SENTENCES = {
    "string": "Must be text.",
    "number": "Must be a number.",
    "integer": "Must be an integer.",
    "boolean": "Must be true or false.",
    "array": "Must be an array.",
    "object": "Must be an object.",
}
NUMERIC_TYPES = ("integer", "number")
FORMATS = ("email", "uri", "date-time")


# ECMA-262's WhiteSpace and LineTerminator: what `\s` matches in a published pattern. Python's
# str.strip() would also take U+001C–U+001F and U+0085, and keep U+FEFF.
ECMA_WHITESPACE = "\t\n\v\f\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000\ufeff"


# Text without NUL, as a JSON Schema pattern (ECMA-262, which Python's re reads alike).
NO_NUL = r"^[^\x00]*$"


def text_pattern(min_length):
    """The JSON Schema pattern of the text a string parameter takes: no NUL and, when it declares
    a min_length, `min_length` characters or more once trimmed (from its first character that is
    not whitespace to its last), so "   " is no search query and " a" is one character."""
    if not min_length:
        return NO_NUL
    if min_length == 1:
        return r"^\s*[^\s\x00][^\x00]*$"
    return rf"^\s*[^\s\x00][^\x00]{{{min_length - 2},}}[^\s\x00]\s*$"


def items_without_nul(items):
    """An array parameter's items schema, saying that its text items hold no NUL."""
    if items is None:
        return {"pattern": NO_NUL}
    if items.get("type", "string") != "string":
        return items
    if "pattern" in items:
        return {"allOf": [items, {"pattern": NO_NUL}]}
    return {**items, "pattern": NO_NUL}


# The built-in search and browse count pages and page sizes from 1 (core/handlers.py).
PAGING_PARAMS = {"search": ("page", "limit"), "browse": ("page", "limit")}
PAGING_RULE = "search and browse count pages and page sizes from 1: an integer with a minimum of 1 or more."


def paging_errors(capability, name, type_name, minimum):
    """Field errors when `name` pages a built-in search or browse and could hold less than 1."""
    if name not in PAGING_PARAMS.get(capability, ()):
        return {}
    if type_name != "integer":
        return {"type": PAGING_RULE}
    if minimum is None or minimum < 1:
        return {"minimum": PAGING_RULE}
    return {}

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


def plain_number(value):
    """A bound as it is published: 1.0 → 1, 2.5 stays 2.5, None stays None."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# Declarations

NOT_FINITE = "Numbers must be finite: JSON has no NaN or Infinity (and 1e999 is Infinity)."


def holds_non_finite(value):
    """True when `value` is, or holds anywhere, a float that is NaN or infinite."""
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, float) and not math.isfinite(current):
            return True
        if isinstance(current, dict):
            pending.extend(current.values())
        elif isinstance(current, list):
            pending.extend(current)
    return False


def descriptor_errors(type_name, default, enum, items, *, minimum=None, maximum=None,
                      min_length=None, max_length=None, format=""):
    """Field errors for one descriptor, as a dict ready for ValidationError."""
    if type_name not in TYPES:
        return {"type": f"Type must be one of: {', '.join(TYPES)}."}
    # Bounds say so themselves (_bound_errors); JSON has no such number for the rest either: no
    # document could state it, no database column hold it.
    not_finite = {field: NOT_FINITE for field, given in (("default", default), ("enum", enum), ("items", items))
                  if holds_non_finite(given)}
    if not_finite:
        return not_finite
    errors = {}
    errors.update(_bound_errors(type_name, minimum, maximum))
    errors.update(_length_errors(type_name, min_length, max_length))
    if format and type_name != "string":
        errors["format"] = "Format only applies to parameters of type string."
    elif format and format not in FORMATS:
        errors["format"] = f"Format must be one of: {', '.join(FORMATS)}."
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
        elif (problem := items_problem(items)) is not None:
            errors["items"] = problem
    if not errors:
        errors.update(_values_within_rules(type_name, default, enum, minimum, maximum, min_length, max_length, format))
    return errors


ITEM_TYPES = ("string", "integer", "number", "boolean")


def items_problem(items):
    """Why `items` cannot describe an array parameter's items, or None.

    A JSON Schema object, self-contained (no $ref), whose `type`, if given, is one scalar type (a
    query string's items are converted to it) and whose patterns compile in Python, as the
    request validator runs them.
    """
    from jsonschema import Draft7Validator  # here, as in items_validator()

    example = 'Items must be a JSON Schema object, e.g. {"type": "string"}.'
    if not isinstance(items, dict) or not Draft7Validator(Draft7Validator.META_SCHEMA).is_valid(items):
        return example
    if "$ref" in _keys_within(items):
        return "Items must be self-contained: no $ref."
    if "type" in items and items["type"] not in ITEM_TYPES:
        return f"The items' type must be one of: {', '.join(ITEM_TYPES)}."
    for pattern in _values_of(items, "pattern"):
        try:
            re.compile(pattern)
        except re.error as error:
            return f"The items' pattern does not compile: {error}."
    return None


def items_validator(items):
    """The validator of an array parameter's `items`. jsonschema is imported here, not at start-up:
    only array parameters need it, and its import costs a process about 35 ms."""
    from jsonschema import Draft7Validator

    return Draft7Validator(items)


def _keys_within(schema):
    if isinstance(schema, dict):
        for key, value in schema.items():
            yield key
            yield from _keys_within(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _keys_within(item)


def _values_of(schema, keyword):
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == keyword and isinstance(value, str):
                yield value
            yield from _values_of(value, keyword)
    elif isinstance(schema, list):
        for item in schema:
            yield from _values_of(item, keyword)


def _bound_errors(type_name, minimum, maximum):
    errors = {}
    for name, bound in (("minimum", minimum), ("maximum", maximum)):
        if bound is None:
            continue
        if type_name not in NUMERIC_TYPES:
            errors[name] = f"{name.capitalize()} only applies to parameters of type integer or number."
        elif isinstance(bound, bool) or not isinstance(bound, (int, float)) or not math.isfinite(bound):
            errors[name] = f"{name.capitalize()} must be a finite number."
        elif abs(bound) > MAX_SAFE_INTEGER:
            errors[name] = f"{name.capitalize()} must be between {-MAX_SAFE_INTEGER} and {MAX_SAFE_INTEGER}."
        elif type_name == "integer" and bound != int(bound):
            errors[name] = f"{name.capitalize()} of an integer parameter must be a whole number."
    if not errors and minimum is not None and maximum is not None and minimum > maximum:
        errors["maximum"] = "Maximum must not be below the minimum."
    return errors


def _length_errors(type_name, min_length, max_length):
    errors = {}
    for name, length in (("min_length", min_length), ("max_length", max_length)):
        if length is None:
            continue
        label = "Minimum length" if name == "min_length" else "Maximum length"
        if type_name != "string":
            errors[name] = f"{label} only applies to parameters of type string."
        elif isinstance(length, bool) or not isinstance(length, int) or length < 0:
            errors[name] = f"{label} must be a whole number of at least 0."
    if not errors and min_length is not None and max_length is not None and min_length > max_length:
        errors["max_length"] = "Maximum length must not be below the minimum length."
    return errors


def _values_within_rules(type_name, default, enum, minimum, maximum, min_length, max_length, format):
    """The default and every enum value must pass the descriptor's own bounds and format."""
    rules = CompiledParam(_Descriptor(
        name="", type=type_name, minimum=minimum, maximum=maximum,
        min_length=min_length, max_length=max_length, format=format,
    ))
    errors = {}
    if default is not None:
        try:
            rules.clean(default)
        except ValueError as problem:
            errors["default"] = f"The default breaks this parameter's rules: {problem}"
    for value in enum or ():
        try:
            rules.clean(value)
        except ValueError as problem:
            errors["enum"] = f"The enum value {value!r} breaks this parameter's rules: {problem}"
            break
    return errors


class _Descriptor:
    """A stand-in with a descriptor's attributes, for checking a declaration before it is saved."""

    def __init__(self, **values):
        self.description, self.required, self.default, self.enum, self.items = "", False, None, None, None
        self.__dict__.update(values)


def is_email_or_url(value):
    for validator in (EmailValidator(), URLValidator(schemes=["http", "https"])):
        try:
            validator(value)
            return True
        except ValidationError:
            continue
    return False


# Formats

ABSOLUTE_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s\x00-\x1f\x7f]+$")
DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _is_email(text):
    try:
        validate_email(text)  # Django's rules, as the contact form and the shop apply them
    except ValidationError:
        return False
    return True


def _is_absolute_uri(text):
    return bool(ABSOLUTE_URI.match(text))


def _is_date_time(text):
    """RFC 3339's date-time (JSON Schema's `date-time`): a full date, time and offset."""
    if not DATE_TIME.match(text):
        return False
    try:
        datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


_FORMATS = {
    "email": (_is_email, "Must be a valid email address.", "an email address"),
    "uri": (_is_absolute_uri, "Must be an absolute URI, such as https://example.com/page.", "an absolute URI"),
    "date-time": (
        _is_date_time,
        "Must be a date and time with an offset, such as 2025-01-31T09:30:00Z (RFC 3339).",
        "an RFC 3339 date-time",
    ),
}


# Compiled rules


class CompiledParam:
    """One descriptor's rules, compiled once: `clean(value)` for each call, `json_schema` and
    `phrase` for the published documents."""

    def __init__(self, descriptor):
        self.name = descriptor.name
        self.type = descriptor.type
        self.enum = list(descriptor.enum) if descriptor.enum is not None else None
        self.items = descriptor.items
        self.declared_bounds = tuple(plain_number(getattr(descriptor, name, None)) for name in ("minimum", "maximum"))
        self.minimum, self.maximum = self._number_range()
        self.min_length = getattr(descriptor, "min_length", None)
        self.max_length = getattr(descriptor, "max_length", None)
        self.format = getattr(descriptor, "format", "") or ""
        self.strip = self.type == "string" and self.min_length is not None
        self.items_validator = items_validator(self.items) if self.type == "array" and self.items else None
        self.bounds_problem = self._bounds_sentence()
        # A number with declared bounds is told them with its type: "Must be an integer from 1 to 100."
        declares_bounds = self.declared_bounds != (None, None)
        numeric_bounds = self.bounds_problem if self.type in NUMERIC_TYPES and declares_bounds else None
        self.type_problem = numeric_bounds or TYPE_SENTENCES[self.type]
        self.json_schema = self._json_schema(descriptor)
        self.phrase = self._phrase()

    def clean(self, value):
        """The value the handler gets (trimmed text, see the module docstring); ValueError says
        what is wrong in one sentence."""
        if self.type == "integer" and isinstance(value, float) and value.is_integer():
            value = int(value)  # JSON Schema's integer: 2.0 is one (and what clients with doubles send)
        if not value_has_type(value, self.type):
            raise ValueError(self.type_problem)
        if _contains_nul(value):
            raise ValueError("Must not contain NUL characters.")
        if self.enum is not None and value not in self.enum:
            raise ValueError(f"Must be one of: {', '.join(str(v) for v in self.enum)}.")
        trimmed = value.strip(ECMA_WHITESPACE) if self.strip else value
        if self.bounds_problem and not self._within_bounds(value, trimmed):
            raise ValueError(self.bounds_problem)
        if self.format:
            accepts, sentence, _ = _FORMATS[self.format]
            if not accepts(value):
                raise ValueError(sentence)
        if self.items_validator is not None:
            bad = next((i for i, item in enumerate(value) if not self.items_validator.is_valid(item)), None)
            if bad is not None:
                raise ValueError(f"Item {bad} does not match the declared item schema.")
        return trimmed

    def _within_bounds(self, value, trimmed):
        """Numbers within the range; text at least min_length once trimmed, at most max_length as sent."""
        if self.type in NUMERIC_TYPES:
            return self.minimum <= value <= self.maximum
        return ((self.min_length is None or len(trimmed) >= self.min_length)
                and (self.max_length is None or len(value) <= self.max_length))

    def _number_range(self):
        """A number's declared bounds, within JavaScript's safe integers, which the server enforces
        (and publishes) whether or not the descriptor declares bounds; (None, None) for the rest."""
        if self.type not in NUMERIC_TYPES:
            return None, None
        low, high = self.declared_bounds
        return (-MAX_SAFE_INTEGER if low is None else low), (MAX_SAFE_INTEGER if high is None else high)

    def _bounds_sentence(self):
        if self.type in NUMERIC_TYPES:
            kind = "an integer" if self.type == "integer" else "a number"
            return f"Must be {kind} from {self.minimum} to {self.maximum}."
        if self.type == "string":
            low, high = self.min_length, self.max_length
            if low is not None and high is not None:
                if low == high:
                    return f"Must be text of exactly {low} characters."
                return f"Must be text of {low} to {high} characters."
            if low is not None:
                return f"Must be text of at least {low} characters."
            if high is not None:
                return f"Must be at most {high} characters."
        return None

    def _json_schema(self, descriptor):
        schema = {"type": self.type}
        if descriptor.description:
            schema["description"] = descriptor.description
        if descriptor.default is not None:
            schema["default"] = descriptor.default
        if self.enum is not None:
            schema["enum"] = list(self.enum)
        if self.type == "array":
            schema["items"] = items_without_nul(self.items)
        for key, value in (("minimum", self.minimum), ("maximum", self.maximum),
                           ("minLength", self.min_length), ("maxLength", self.max_length)):
            if value is not None:
                schema[key] = value
        if self.format:
            schema["format"] = self.format
        if self.type == "string":
            schema["pattern"] = text_pattern(self.min_length if self.strip else 0)
        elif self.type == "object":
            schema["propertyNames"] = {"pattern": NO_NUL}
            schema["additionalProperties"] = {"pattern": NO_NUL}
        return schema

    def _phrase(self):
        """The rules agents.json cannot carry as keys, in words: "an email address, 3 to 320 characters"
        (a number's declared bounds: the safe integers' go without saying)."""
        parts = []
        if self.format:
            parts.append(_FORMATS[self.format][2])
        low, high = self.declared_bounds if self.type in NUMERIC_TYPES else (self.min_length, self.max_length)
        unit = " characters" if self.type == "string" else ""
        if low is not None and high is not None:
            parts.append(f"{low}{unit}" if low == high else f"{low} to {high}{unit}")
        elif low is not None:
            parts.append(f"at least {low}{unit}")
        elif high is not None:
            parts.append(f"at most {high}{unit}")
        return ", ".join(parts)


def compile_param(descriptor):
    """Compile one descriptor (a ParamSpec, or anything with its attributes)."""
    return CompiledParam(descriptor)


def compiled(descriptor):
    """The descriptor's compiled rules: a ParamSpec keeps them for the life of its snapshot."""
    rules = getattr(descriptor, "rules", None)
    return rules if isinstance(rules, CompiledParam) else compile_param(descriptor)


def param_json_schema(param):
    """The parameter as a JSON Schema fragment (a fresh copy): type, description, default, enum,
    items, minimum, maximum, minLength, maxLength, format, and the pattern of trimmed text's length."""
    schema = dict(compiled(param).json_schema)
    if isinstance(schema.get("items"), dict):
        schema["items"] = dict(schema["items"])
    if "enum" in schema:
        schema["enum"] = list(schema["enum"])
    return schema


def param_phrase(param):
    """The parameter's bounds and format in words ("1 to 200 characters"), or ""."""
    return compiled(param).phrase


def param_description(param):
    """The description with the rules in words: "Search query (1 to 200 characters)"."""
    phrase = param_phrase(param)
    if not phrase:
        return param.description
    if not param.description:
        return phrase[0].upper() + phrase[1:]
    return f"{param.description} ({phrase})"


# Calls


ABSENT = object()  # a parameter not sent at all (a null sent is a value, of no declared type)


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
        if value is ABSENT:
            if descriptor.required:
                errors[name] = "This parameter is required."
            elif descriptor.default is not None:
                values[name] = descriptor.default
            continue
        try:
            values[name] = compiled(descriptor).clean(value)
        except ValueError as error:
            errors[name] = str(error)
    if errors:
        raise invalid_params(errors)
    return values


def invalid_params(errors):
    """The 400 invalid_params refusal naming each parameter's problem ({name: sentence})."""
    summary = "; ".join(f"{name}: {message}" for name, message in errors.items())
    return bad_request(f"Invalid parameters ({summary})", "invalid_params", fields=errors)


def _pick(descriptor, body, query, path):
    name = descriptor.name
    if name in path:
        return _from_text(descriptor, [path[name]])
    if name in body:
        return body[name]
    if name in query:
        return _from_text(descriptor, query[name])
    return ABSENT


def _from_text(descriptor, texts):
    """Convert query or path text to the declared type; ValueError says what is wrong."""
    if descriptor.type == "array":
        return [_scalar_from_text(descriptor.items or {}, text) for text in texts]
    if len(texts) != 1:
        raise ValueError("Send this parameter once.")
    try:
        return _scalar_from_text({"type": descriptor.type}, texts[0])
    except NotOfType:
        raise ValueError(compiled(descriptor).type_problem) from None


class NotOfType(ValueError):
    """Query or path text that is not of the declared type at all."""


def _scalar_from_text(schema, text):
    kind = schema.get("type", "string")
    if kind == "integer":
        if not INTEGER_TEXT.match(text.strip()):
            raise NotOfType(TYPE_SENTENCES["integer"])
        return int(text)
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise NotOfType(TYPE_SENTENCES["number"]) from None
        if not math.isfinite(number):
            raise ValueError("Must be a finite number.")
        return number
    if kind == "boolean":
        if text.lower() not in TRUE_TEXT | FALSE_TEXT:
            raise NotOfType(TYPE_SENTENCES["boolean"])
        return text.lower() in TRUE_TEXT
    if kind in {"array", "object"}:
        raise ValueError(f"An {kind} cannot be sent in a query string; send a JSON body.")
    return text


def _contains_nul(value):
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(_contains_nul(item) for item in value)
    if isinstance(value, dict):
        return any(_contains_nul(k) or _contains_nul(v) for k, v in value.items())
    return False
