"""The shape of a cart line, declared once: the output schemas publish it (documents/schemas.py)
and every provider's cart answer is checked against it (core/handlers.py), so one shape reaches
agents whichever shop answers.

A provider that returns another shape (`id` and `price`, say) has a bug the agent cannot work
around: the call fails with a 500 whose log names the line and what it lacks, as a price that is
no amount of money does (core/money.py).
"""
from decimal import Decimal

CART_LINE = {
    "type": "object",
    "required": ["item_id", "name", "unit_price", "quantity", "line_total", "currency"],
    "properties": {
        "item_id": {"type": "string", "description": "The item's ID, as the cart's capabilities take it"},
        "name": {"type": "string"},
        "unit_price": {"type": "number", "description": "The shop's price of one, with its currency's decimals"},
        "quantity": {"type": "integer", "minimum": 1},
        "line_total": {"type": "number", "description": "The line's total, with its currency's decimals"},
        "currency": {"type": "string"},
        "available": {"type": "integer", "minimum": 0, "description": "How many the shop has"},
        "in_stock": {"type": "boolean", "description": "Whether the shop has the whole quantity"},
    },
}

_TYPES = {"string": (str,), "number": (int, float, Decimal), "integer": (int,), "boolean": (bool,)}


class NotACartLine(ValueError):
    """A cart line of the provider without the declared shape."""


def line_problems(line):
    """What `line` (a provider's cart line, ids already written as text) lacks of CART_LINE: a
    list of sentences, empty when it has the declared shape."""
    if not isinstance(line, dict):
        return [f"a cart line is an object, not {line!r}"]
    problems = [f"no {key}" for key in CART_LINE["required"] if key not in line]
    for key, rule in CART_LINE["properties"].items():
        if key not in line:
            continue
        value = line[key]
        if not _has_type(value, rule["type"]):
            problems.append(f"{key} {value!r} is no {rule['type']}")
        elif "minimum" in rule and value < rule["minimum"]:
            problems.append(f"{key} {value!r} is below {rule['minimum']}")
    return problems


def check_cart_line(line):
    """`line` itself, or NotACartLine naming what it lacks of the declared shape."""
    problems = line_problems(line)
    if problems:
        named = line.get("item_id", line.get("id")) if isinstance(line, dict) else None
        raise NotACartLine(f"The provider's cart line {named!r} does not have the declared shape "
                           f"(core/outputs.py CART_LINE): {'; '.join(problems)}.")
    return line


def _has_type(value, type_name):
    if isinstance(value, bool) and type_name != "boolean":
        return False
    return isinstance(value, _TYPES[type_name])
