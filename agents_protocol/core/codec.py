"""The one JSON codec of the app: every answer, document and parsed body goes through it.

Money travels as Decimal and is written as a JSON number with its two decimals (56.00),
which the standard library cannot do; simplejson can. NaN and Infinity are refused both
ways: they are not JSON, and a client's parser would choke on them. (A literal beyond a double,
1e400, decodes to infinity, which the capability schema then refuses for its parameter.)

A few types JSON lacks but Django code commonly returns are written too (`written_as_json`):
datetimes and dates, UUIDs, lazy translation text and sets; tuples as arrays, and named tuples
(and anything else with `_asdict`, as simplejson writes them) as objects. Any other type is
refused, as before: in an answer, that is the 500 envelope.
"""
import re
import uuid
from datetime import date, datetime
from decimal import Decimal

import simplejson
from django.utils import timezone
from django.utils.encoding import force_str
from django.utils.functional import Promise

from agents_protocol.core.formats import iso_utc

JSON_MEDIA_TYPE = "application/json"
JSON_CHARSET = "utf-8"
# What every JSON answer of the app says it is: the pipeline's (API, A2A, PactSpec, MCP), the
# documents' and the refusals built outside the pipeline. The protocol's interaction API asks
# for exactly this ("Always `application/json; charset=utf-8`"); the codec writes UTF-8.
JSON_CONTENT_TYPE = f"{JSON_MEDIA_TYPE}; charset={JSON_CHARSET}"

# Deeper bodies are refused before anything walks them recursively.
MAX_NESTING = 32


def written_as_json(value):
    """The JSON value the codec writes for `value`, a type JSON lacks; TypeError for an unknown one.

    The encoder calls it only for types it cannot write itself, so the common answers pay nothing.
    A datetime is written as the app writes times (UTC, with a Z); a naive one is read in the
    default time zone, as Django reads it when saving it to a DateTimeField. A set is written
    sorted, so the same set is always the same JSON whatever its iteration order: texts and
    numbers in their own order, other items by their JSON (a set of frozensets has no total order).
    """
    if isinstance(value, datetime):
        aware = value if timezone.is_aware(value) else timezone.make_aware(value, timezone.get_default_timezone())
        return iso_utc(aware)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, Promise):
        return force_str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=None if _naturally_ordered(value) else encode)
    if callable(getattr(value, "_asdict", None)):  # a named tuple (values_list(named=True) rows …)
        return value._asdict()
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _naturally_ordered(items):
    return all(isinstance(item, str) for item in items) or all(
        isinstance(item, (int, float, Decimal)) for item in items)


# Made once: simplejson.dumps() builds an encoder per call when given options (1.4 µs of 6).
# Encoding keeps no state between calls, so threads share them. Tuples and named tuples go to
# written_as_json, which writes them as simplejson would by default (arrays, objects): with its
# default (namedtuple_as_object) the C encoder asks every dict, list and Decimal for an `_asdict`
# method, and the AttributeError it makes and drops each time (its message formatted) made a
# 10-line cart answer 74 µs to write instead of 18.
ENCODER_OPTIONS = {"use_decimal": True, "allow_nan": False, "ensure_ascii": False, "namedtuple_as_object": False,
                   "tuple_as_array": False, "default": written_as_json}
COMPACT = simplejson.JSONEncoder(separators=(",", ":"), **ENCODER_OPTIONS)
INDENTED = simplejson.JSONEncoder(indent=2, **ENCODER_OPTIONS)


class MalformedJSON(ValueError):
    """The text is not the JSON the app accepts; the message says why, for the agent."""


def encode(value):
    """Compact UTF-8 JSON bytes: the wire form of every API answer."""
    return COMPACT.encode(value).encode()


def encode_document(value):
    """Indented UTF-8 JSON bytes with a final newline: the published documents."""
    return INDENTED.encode(value).encode() + b"\n"


def decode(body):
    """The value of a JSON text (bytes or str); MalformedJSON for invalid JSON, NaN or Infinity,
    a key given twice in one object, nesting deeper than MAX_NESTING, or a string holding half of
    a surrogate pair."""
    try:
        value = DECODER.decode(body)
    except MalformedJSON:
        raise
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise MalformedJSON("The request body is not valid JSON.") from None
    if may_nest_deeper_than_allowed(body) and nesting_depth(value) > MAX_NESTING:
        raise MalformedJSON(f"The request body nests deeper than {MAX_NESTING} levels.")
    if escapes_a_surrogate(body) and holds_lone_surrogate(value):
        raise MalformedJSON("The request body is not valid JSON for this API: a string holds half of a "
                            "surrogate pair (\\ud800 to \\udfff without its other half), which is no character.")
    return value


def may_nest_deeper_than_allowed(body):
    """False when the text has too few brackets to nest past MAX_NESTING (every object and array
    opens with one): then the decoded value is not walked, as for nearly every body."""
    opening = ("{", "[") if isinstance(body, str) else (b"{", b"[")
    return body.count(opening[0]) + body.count(opening[1]) > MAX_NESTING


def nesting_depth(value):
    """How deeply objects and arrays nest (1 for a flat object); a level at a time, without
    recursion, so any depth is safe."""
    depth, level = 0, [value]
    while True:
        containers = [item for item in level if isinstance(item, (dict, list))]
        if not containers:
            return depth
        depth += 1
        level = [child for container in containers
                 for child in (container.values() if isinstance(container, dict) else container)]


# JSON may escape half of a UTF-16 surrogate pair alone ("\ud800"); Python then holds a string
# that no database, hash or UTF-8 answer can take. Only a body with such an escape is walked.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
SURROGATE_ESCAPE_BYTES = re.compile(SURROGATE_ESCAPE.pattern.encode())


def escapes_a_surrogate(body):
    """True when the JSON text escapes a surrogate (paired or not): only then is the value walked."""
    pattern = SURROGATE_ESCAPE if isinstance(body, str) else SURROGATE_ESCAPE_BYTES
    return pattern.search(body) is not None


def holds_lone_surrogate(value):
    """True when a key or string anywhere in `value` holds a surrogate that is not part of a pair."""
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, str):
            if not current.isascii() and not _is_utf8(current):
                return True
        elif isinstance(current, dict):
            pending.extend(current)
            pending.extend(current.values())
        elif isinstance(current, list):
            pending.extend(current)
    return False


def _is_utf8(text):
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _reject_constant(name):
    raise MalformedJSON(f"The request body is not valid JSON ({name} is not a JSON number).")


def _unique_keys(pairs):
    value = dict(pairs)
    if len(value) != len(pairs):
        raise MalformedJSON("The request body is not valid JSON for this API: an object repeats a key.")
    return value


# Made once, as the encoders are (simplejson.loads() builds a decoder per call when given options).
DECODER = simplejson.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
