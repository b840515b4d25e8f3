"""Examples captured from real answers: safe capabilities invoked in-process.

Only capabilities that change nothing are called: GET without a session. Inputs come
from the protocol, never from the shop's code: a capability without required parameters
is called with its defaults (and a short page); `id`, `item_id` and `q` are filled from
the first item such a call listed. Anything refused is simply left without an example.
"""
import logging

from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.invocation import invoke_capability
from agents_protocol.core.provider import ProviderNotConfigured

EXAMPLE_PAGE_SIZE = 2

logger = logging.getLogger(__name__)


def capture_examples(config, origin, failed=None):
    """{capability name: {"input": params, "output": data}} for the safe capabilities. The names
    of capabilities whose provider failed (not refused: failed) are appended to `failed`."""
    safe = [c for c in config.enabled_capabilities if c.method == "GET" and not c.requires_session]
    # Capabilities without required parameters first: their answers reveal an item.
    safe.sort(key=lambda c: any(p.required for p in c.params))
    examples, item = {}, None
    for capability in safe:
        params = example_input(capability, item)
        if params is None:
            continue
        try:
            output = invoke_capability(config, capability, params, None, origin)
        except (CapabilityError, ProviderNotConfigured):
            continue
        except Exception:  # the shop's provider failed: the document goes without this example
            logger.exception("Could not capture an example of %s", capability.name)
            if failed is not None:
                failed.append(capability.name)
            continue
        examples[capability.name] = {"input": params, "output": output}
        item = item or first_item(output)
    return examples


def example_input(capability, item):
    """Parameters for one call, or None when a required one cannot be filled."""
    params = {}
    for param in capability.params:
        if param.name == "limit" and param.type == "integer":
            params["limit"] = _within(EXAMPLE_PAGE_SIZE, param.minimum, param.maximum)
        if param.required:
            value = _from_item(param.name, item)
            if value is None:
                return None
            params[param.name] = value
    return params


def _within(value, minimum, maximum):
    """`value`, moved inside the parameter's declared bounds."""
    if minimum is not None:
        value = max(value, minimum)
    return value if maximum is None else min(value, maximum)


def _from_item(name, item):
    if item is None:
        return None
    if name in ("id", "item_id"):
        return item["id"]
    if name == "q":
        words = item["name"].split()
        return words[0] if words else None
    return None


def first_item(output):
    """The first object with an `id` and a `name` in any list of the answer."""
    if not isinstance(output, dict):
        return None
    for value in output.values():
        if isinstance(value, list):
            for entry in value:
                if isinstance(entry, dict) and isinstance(entry.get("id"), str) and isinstance(entry.get("name"), str):
                    return entry
    return None
