"""The UCP specification's JSON schemas (../shared/reference/ucp-spec/source, protocol version
2026-01-11), every $ref resolved locally.

Each file is registered at the address its folder gives it (source/<path> at
https://ucp.dev/<path>), which is its own $id for every file but discovery/profile_schema.json:
that one's $id names another folder than its relative $refs are written from.

One contradiction is settled for the suite: the schemas here (tag v2026-01-23) key the `ucp`
member's `services` and `capabilities` by name, holding arrays of entries, while ucp-sdk 0.1.0,
whose models the official suite parses every answer with, reads `services` as one object per
name and `capabilities` as a list. No answer can be both; these two take ucp-sdk's shape, each
entry still an entity of the schemas (ucp.json's `entity`, capability.json's `base`).
Everything else is the schemas' own, `ucp.payment_handlers` included.
"""
import json
from functools import cache

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import best_match
from referencing import Registry, Resource

from tests.servers import ROOT

SPEC_SOURCE = ROOT.parent / "shared" / "reference" / "ucp-spec" / "source"
SITE = "https://ucp.dev/"
SCHEMAS = f"{SITE}schemas/"
CHECKOUT = f"{SCHEMAS}shopping/checkout.json"
ORDER = f"{SCHEMAS}shopping/order.json"
# /.well-known/ucp is a business's profile: the schema's oneOf of platform and business profiles
# cannot tell the two apart once services are read as ucp-sdk reads them.
PROFILE = f"{SITE}discovery/profile_schema.json#/$defs/business_profile"
# The REST binding's error structure (checkout-rest.md, "Error Responses"): the checkout's status
# when there is one, and at least one error message.
ERROR = {
    "type": "object",
    "required": ["messages"],
    "properties": {
        "status": {"$ref": f"{CHECKOUT}#/properties/status"},
        "messages": {"type": "array", "minItems": 1, "items": {"$ref": f"{SCHEMAS}shopping/types/message_error.json"}},
    },
}


@cache
def _documents():
    """Every JSON schema of the specification, its $id the address of its file."""
    documents = []
    for path in sorted(SPEC_SOURCE.rglob("*.json")):
        document = json.loads(path.read_text())
        if "$schema" in document:
            documents.append({**document, "$id": f"{SITE}{path.relative_to(SPEC_SOURCE)}"})
    for document in documents:
        if document["$id"] == f"{SCHEMAS}ucp.json":
            registries = document["$defs"]["base"]["properties"]
            registries["services"]["additionalProperties"] = {"$ref": "#/$defs/entity"}
            registries["capabilities"] = {"type": "array", "items": {"$ref": "capability.json#/$defs/base"}}
    return documents


@cache
def _registry():
    return Registry().with_resources(
        (document["$id"], Resource.from_contents(document)) for document in _documents())


def validator(schema):
    """A validator of `schema` (a $id, or a schema whose $refs name $ids) checking formats too."""
    if isinstance(schema, str):
        schema = {"$ref": schema}
    return Draft202012Validator(schema, registry=_registry(), format_checker=FormatChecker())


def checkout_validators(capability_names):
    """The base checkout's validator and, for each declared capability that extends the checkout
    (its schema has $defs/checkout: fulfillment, discount, buyer consent, AP2), the extended one's."""
    validators = {"dev.ucp.shopping.checkout": validator(CHECKOUT)}
    for document in _documents():
        if document.get("name") in capability_names and "checkout" in document.get("$defs", {}):
            validators[document["name"]] = validator(f"{document['$id']}#/$defs/checkout")
    return validators


def problems(validator, instance):
    """Each way `instance` fails `validator`, as 'at <path>: <message>' lines; for a failed
    oneOf or anyOf, the reason of the branch that came closest."""
    found = []
    for error in validator.iter_errors(instance):
        while error.context:
            error = best_match(error.context)
        found.append(f"at {error.json_path}: {error.message}"[:500])
    return found
