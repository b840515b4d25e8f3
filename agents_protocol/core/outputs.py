"""What a capability answers, declared once: a JSON Schema registered with its handler
(core/capabilities.py `register(name, handler, output=...)`). The built-in capabilities'
schemas are below (core/handlers.py registers them); every document that publishes an output
(OpenAPI, PactSpec, MCP's outputSchema) reads the registry, and `published()` writes and checks
each answer by the same declaration, so one shape reaches agents whichever shop answers.

What the declaration says of an answer's values is how they are written:
- a property declared a string that the provider gives as an integer (a Django pk) is written as
  its digits, so an agent can send it back where an id is a string parameter;
- a `"format": "uri"` given as a path (Django's get_absolute_url()) is joined to the origin the
  agent called;
- an optional property given as None, where its type is not null, is left out, with the properties
  `dependentRequired` ties to it (an unpriced item has neither price nor currency, as
  contrib/oscar answers).

An answer without the declared shape (a cart line with `id` and `price`, a count that is text) is a
bug of the provider the agent cannot work around: the call fails with a 500 whose log names what
it lacks, as a price that is no amount of money does (core/money.py). Values the codec writes
itself (a UUID, a named tuple, a model's lazy text) are left to it. A shop's items may carry more
fields than a schema declares: they are answered as given.
"""
import re
from collections.abc import Iterable
from decimal import Decimal
from urllib.parse import urljoin

MONEY = {"type": "number", "description": "Set by the shop, with its currency's decimals"}
CURRENCY_NEEDS_PRICE = {"currency": ["price"]}  # an unpriced item has no currency either
VARIANT_OF = {"type": "string", "description": "For a variant: the ID of the item it is a variant of"}
ITEM = {
    "type": "object",
    "required": ["id", "name"],
    "properties": {
        "id": {"type": "string", "description": "Item ID, for detail and cart capabilities"},
        "name": {"type": "string"},
        "price": {**MONEY, "description": "Price set by the shop, with its currency's decimals"},
        "currency": {"type": "string"},
        "url": {"type": "string", "format": "uri", "description": "The item's page, for humans"},
    },
    "dependentRequired": CURRENCY_NEEDS_PRICE,
}
VARIANT = {
    "type": "object",
    "required": ["id", "attributes"],
    "properties": {
        "id": {"type": "string", "description": "The variant's own item ID: what cart.add takes"},
        "name": {"type": "string"},
        "attributes": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": 'What sets this variant apart, e.g. {"size": "large"}',
        },
        "price": {**MONEY, "description": "The variant's price, with its currency's decimals"},
        "currency": {"type": "string"},
        "stock": {"type": "integer", "minimum": 0},
        "in_stock": {"type": "boolean"},
        "variant_of": VARIANT_OF,
    },
    "dependentRequired": CURRENCY_NEEDS_PRICE,
}
DETAIL = {
    **ITEM,
    "properties": {
        **ITEM["properties"],
        "variants": {
            "type": "array",
            "items": VARIANT,
            "description": "When present, the item is sold only as one of these: give cart.add a variant's id",
        },
        "variant_of": VARIANT_OF,
    },
}
NOTICES = {
    "type": "array", "items": {"type": "string"},
    "description": "When the shop has something to tell, e.g. a price that changed since the agent last saw the cart",
}
COUNTS = {"total": {"type": "integer", "minimum": 0}, "page": {"type": "integer"}, "limit": {"type": "integer"}}
CART_LINE = {
    "type": "object",
    "required": ["item_id", "name", "unit_price", "quantity", "line_total", "currency"],
    "properties": {
        "item_id": {"type": "string", "description": "The item's ID, as the cart's capabilities take it"},
        "name": {"type": "string"},
        "unit_price": {**MONEY, "description": "The shop's price of one, with its currency's decimals"},
        "quantity": {"type": "integer", "minimum": 1},
        "line_total": {**MONEY, "description": "The line's total, with its currency's decimals"},
        "currency": {"type": "string"},
        "available": {"type": "integer", "minimum": 0, "description": "How many the shop has"},
        "in_stock": {"type": "boolean", "description": "Whether the shop has the whole quantity"},
    },
}
CART = {
    "type": "object",
    "required": ["items", "subtotal", "currency", "cart_size"],
    "properties": {
        "items": {"type": "array", "items": CART_LINE},
        "subtotal": MONEY,
        "currency": {"type": "string"},
        "cart_size": {"type": "integer", "minimum": 0, "description": "Number of lines"},
        "notices": NOTICES,
    },
}
CART_LINE_CHANGE = {
    "type": "object",
    "required": ["item_id", "quantity", "cart_size", "cart"],
    "properties": {
        "item_id": {"type": "string"},
        "quantity": {"type": "integer", "minimum": 0, "description": "The line's quantity now"},
        "cart_size": {"type": "integer", "minimum": 0},
        "cart": CART,
        "notices": NOTICES,
    },
}
HANDOFF = {
    "type": "object",
    "required": ["checkout_url", "human_handoff", "expires_at", "message"],
    "properties": {
        "checkout_url": {"type": "string", "format": "uri", "description": "For the human; do not follow it"},
        "human_handoff": {"const": True},
        "expires_at": {"type": "string", "format": "date-time"},
        "order_id": {"type": "string"},
        "message": {"type": "string"},
        "notices": NOTICES,
    },
}
ORDER_PROPERTIES = {
    "order_id": {"type": "string", "description": "The id checkout answered"},
    "status": {"type": "string", "description": "pending, confirmed, declined, expired or cancelled"},
}
ORDER_STATUS = {
    "type": "object",
    "description": "The session's orders, newest first; with order_id, that one order",
    "properties": {
        "orders": {"type": "array", "items": {"type": "object", "required": ["order_id", "status"],
                                              "properties": ORDER_PROPERTIES}},
        **ORDER_PROPERTIES,
    },
    "anyOf": [{"required": ["orders"]}, {"required": ["order_id", "status"]}],
}
SEARCH = {
    "type": "object",
    "required": ["results", "total", "page", "limit"],
    "properties": {"results": {"type": "array", "items": ITEM}, **COUNTS},
}
BROWSE = {
    "type": "object",
    "required": ["items", "total", "page", "limit"],
    "properties": {"items": {"type": "array", "items": ITEM}, **COUNTS},
}
CONTACT = {
    "type": "object",
    "description": "The shop's acknowledgement",
    "properties": {"sent": {"type": "boolean", "description": "true once the message was sent to the shop"}},
}

HAS_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # RFC 3986's scheme: an absolute URL
JSON_TYPES = {"object": (dict,), "array": (list, tuple), "string": (str,), "number": (int, float, Decimal),
              "integer": (int,), "boolean": (bool,)}
# Values of these types are checked against the declaration; any other value is the codec's to write.
CHECKED = (dict, list, tuple, str, int, float, Decimal, bool)
ABSENT = object()


class NotTheDeclaredShape(ValueError):
    """A provider's answer without the shape its capability declares."""


class Lacking(Exception):
    """What a value lacks of its schema, and where: raised from the value up to the answer."""

    def __init__(self, problems, named=None):
        super().__init__(problems)
        self.problems, self.named, self.path = problems, named, []

    def inside(self, step):
        self.path.insert(0, step)
        return self

    def __str__(self):
        where = "".join(step if step.startswith("[") else f".{step}" for step in self.path).lstrip(".")
        named = "" if self.named is None else f" ({self.named!r})"
        return f"{where or 'the answer'}{named}: {self.problems}"


def published(answer, schema, origin, name="the capability"):
    """`answer` as `schema` declares it (see above), or NotTheDeclaredShape naming what it lacks.

    The provider's own objects are answered as they are whenever nothing needs rewriting, and
    copies otherwise: a provider may hand out dicts it keeps and shares between calls (the demo
    shop's catalog read cache does), which the app must not change.
    """
    try:
        return writer(schema)(answer, origin)
    except Lacking as lacking:
        raise NotTheDeclaredShape(f"The provider's answer to {name} does not have the declared shape "
                                  f"(core/outputs.py): {lacking}.") from None


_writers = {}


def writer(schema):
    """The function writing a value as `schema` declares it, compiled once per schema."""
    kept = _writers.get(id(schema))
    if kept is None or kept[0] is not schema:
        kept = _writers[id(schema)] = (schema, _compiled(schema))
    return kept[1]


def _compiled(schema):
    kind = schema.get("type")
    if kind == "object":
        return _object_writer(schema)
    if kind == "array" and "items" in schema:
        return _array_writer(writer(schema["items"]))
    if not isinstance(kind, str) or kind not in JSON_TYPES:  # none, "null", or a list of types
        return lambda value, origin: value
    return _scalar_writer(kind, schema.get("format") == "uri", schema.get("minimum"))


def _scalar_writer(kind, is_uri, minimum):
    """A writer of one kind, each as short as the hot path of every answer wants it."""
    types = JSON_TYPES[kind]

    def check(value):
        """Lacking when `value` is a JSON value of another kind, or below the minimum."""
        if not isinstance(value, CHECKED):
            return  # the codec's to write
        if not isinstance(value, types) or (type(value) is bool and kind != "boolean"):
            raise Lacking(f"{value!r} is no {kind}")
        if minimum is not None and value < minimum:
            raise Lacking(f"{value!r} is below {minimum}")

    if kind == "string":
        def write(value, origin):
            known = type(value)
            if known is str:
                return urljoin(f"{origin}/", value) if is_uri and value and not HAS_SCHEME.match(value) else value
            if known is int:  # type(): True is no id
                return str(value)
            check(value)
            return value
    elif minimum is None:
        def write(value, origin):
            if type(value) not in types:
                check(value)
            return value
    else:
        def write(value, origin):
            if type(value) not in types or value < minimum:
                check(value)
            return value
    return write


def _object_writer(schema):
    rules = schema.get("properties", {})
    required = schema.get("required", ())
    properties = tuple((key, writer(rule), key in required, _refuses_null(rule), *_written_as_given(rule))
                       for key, rule in rules.items())
    required_elsewhere = tuple(key for key in required if key not in rules)
    dependent = tuple(schema.get("dependentRequired", {}).items())

    def write(value, origin):
        if type(value) is not dict and not isinstance(value, dict):
            if isinstance(value, CHECKED) and not isinstance(value, tuple):  # a named tuple is written as an object
                raise Lacking(f"{value!r} is no object")
            return value
        written = value
        problems = [f"no {key}" for key in required_elsewhere if value.get(key) is None] if required_elsewhere else []
        for key, write_property, is_required, refuses_null, as_given, minimum in properties:
            old = value.get(key, ABSENT)
            if type(old) in as_given and (minimum is None or old >= minimum):  # the usual value: as it is
                continue
            if old is ABSENT or old is None:
                if is_required:
                    problems.append(f"no {key}")
                elif old is None and refuses_null:  # an optional property given as None: left out
                    written = dict(value) if written is value else written
                    del written[key]
                continue
            try:
                new = write_property(old, origin)
            except Lacking as lacking:
                if lacking.path or lacking.named is not None or isinstance(old, (dict, list, tuple)):
                    raise lacking.inside(key) from None
                problems.append(f"{key} {lacking.problems}")
                continue
            if new is not old:
                written = dict(value) if written is value else written
                written[key] = new
        if problems:
            raise Lacking("; ".join(problems), value.get("id", value.get("item_id")))
        for key, needed in dependent:  # (usually none)
            if key in written:
                for other in needed:
                    if other not in written:
                        written = dict(value) if written is value else written
                        del written[key]
                        break
        return written
    return write


def _written_as_given(rule):
    """(exact types, minimum or None): the values `rule`'s writer answers as they are, which the
    object writer checks itself instead of calling it. No types for a URI (its scheme is read),
    an object or an array."""
    kind = rule.get("type")
    if not isinstance(kind, str) or kind not in JSON_TYPES or kind in ("object", "array"):
        return (), None
    if kind == "string":
        return () if rule.get("format") == "uri" else (str,), None
    return JSON_TYPES[kind], rule.get("minimum")


def _refuses_null(rule):
    """True for a property of one type other than null: None is left out of the answer."""
    kind = rule.get("type")
    return isinstance(kind, str) and kind != "null"


def _array_writer(write_item):
    def write(value, origin):
        if not isinstance(value, (list, tuple)):
            if isinstance(value, CHECKED):
                raise Lacking(f"{value!r} is no array")
            if isinstance(value, (set, frozenset)) or not isinstance(value, Iterable):
                return value  # the codec's to write (a set as a sorted list)
            value = list(value)  # a QuerySet's values(), a generator: read once, then written as a list
        written = value
        for index, item in enumerate(value):
            try:
                new = write_item(item, origin)
            except Lacking as lacking:
                raise lacking.inside(f"[{index}]") from None
            if new is not item:
                written = list(value) if written is value else written
                written[index] = new
        return written
    return write
