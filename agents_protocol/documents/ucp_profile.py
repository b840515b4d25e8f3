"""The business profile of the Universal Commerce Protocol (/.well-known/ucp), from the database.

Admin turns UCP on (CommerceConfig) and lists the payment handlers the shop accepts; the
capabilities are the ones the shop's provider supports (transports/py). The profile
has the shape ucp-sdk 0.1.0 reads (the one the protocol's conformance suite tests): the
`dev.ucp.shopping` service with its REST endpoint, the capabilities as a list and the payment
handlers under `payment`. Every spec and schema URL it names answers from the site itself: the
schemas are the specification's own files (ucp_schemas/), the spec pages short HTML pages
linking to ucp.dev, so a platform without access to ucp.dev can read all of it.
"""
from pathlib import Path

from agents_protocol.checkout import services
from agents_protocol.checkout.models import PaymentHandler

VERSION = "2026-01-11"
CHECKOUT, ORDER = "dev.ucp.shopping.checkout", "dev.ucp.shopping.order"
FULFILLMENT, DISCOUNT = "dev.ucp.shopping.fulfillment", "dev.ucp.shopping.discount"
BUYER_CONSENT = "dev.ucp.shopping.buyer_consent"
SCHEMAS_DIR = Path(__file__).parent / "ucp_schemas"
PROFILE_PATH = "/.well-known/ucp"
SCHEMAS_PATH = f"{PROFILE_PATH}/schemas/"
SPEC_PATH = f"{PROFILE_PATH}/spec/"
# capability → (its page's name at ucp.dev/specification, its schema file, the capability it extends)
CAPABILITY_DOCUMENTS = {
    CHECKOUT: ("checkout", "checkout.json", None),
    ORDER: ("order", "order.json", None),
    FULFILLMENT: ("fulfillment", "fulfillment.json", CHECKOUT),
    DISCOUNT: ("discount", "discount.json", CHECKOUT),
    BUYER_CONSENT: ("buyer-consent", "buyer_consent.json", CHECKOUT),
}
SERVICE_SPEC = "overview"


def declared_capabilities():
    """The capabilities this shop's provider supports, as the profile and every answer name them."""
    names = [CHECKOUT, ORDER, BUYER_CONSENT]
    if services.offers_shipping():
        names.append(FULFILLMENT)
    if services.offers_discounts():
        names.append(DISCOUNT)
    return names


def absolute(origin, url):
    """A URL admin wrote as a path of this site ("/…") made absolute; others as they are."""
    return f"{origin}{url}" if url.startswith("/") else url


def payment_handlers(origin):
    """The handlers admin configured."""
    return [{"id": h.handler_id, "name": h.name, "version": h.version, "spec": absolute(origin, h.spec),
             "config_schema": absolute(origin, h.config_schema),
             "instrument_schemas": [absolute(origin, url) for url in h.instrument_schemas], "config": h.config}
            for h in PaymentHandler.objects.all()]


def payment_handler_registry(origin):
    """The same handlers as the spec's registry (ucp.json `payment_handlers`, required in the
    profile and in checkout answers): entries keyed by their reverse-domain name. ucp-sdk 0.1.0,
    which the official suite reads, takes them from `payment.handlers` instead: both are given."""
    registry = {}
    for handler in payment_handlers(origin):
        registry.setdefault(handler["name"], []).append(
            {key: handler[key] for key in ("id", "version", "spec", "config")})
    return registry


def schema_names():
    return {path.name for path in SCHEMAS_DIR.glob("*.json")}


def spec_names():
    return {page for page, _, _ in CAPABILITY_DOCUMENTS.values()} | {SERVICE_SPEC}


def business_profile(origin, signing_keys=()):
    """`signing_keys`: the JWKs that verify the shop's webhook signatures (outbound/signing.py)."""
    profile = {
        "ucp": {
            "version": VERSION,
            "services": {
                "dev.ucp.shopping": {
                    "version": VERSION,
                    "spec": f"{origin}{SPEC_PATH}{SERVICE_SPEC}",
                    "rest": {"schema": f"{origin}{SCHEMAS_PATH}rest.openapi.json", "endpoint": origin},
                },
            },
            "capabilities": [capability(origin, name) for name in declared_capabilities()],
            "payment_handlers": payment_handler_registry(origin),
        },
        "payment": {"handlers": payment_handlers(origin)},
    }
    if signing_keys:
        profile["signing_keys"] = list(signing_keys)
    return profile


def capability(origin, name):
    page, schema, extends = CAPABILITY_DOCUMENTS[name]
    entry = {"name": name, "version": VERSION, "spec": f"{origin}{SPEC_PATH}{page}",
             "schema": f"{origin}{SCHEMAS_PATH}{schema}"}
    if extends:
        entry["extends"] = extends
    return entry


def spec_page(name):
    """The short HTML page a profile's `spec` URL names: what it is, and where the text is."""
    url = f"https://ucp.dev/specification/{name}"
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>UCP {name}</title></head>"
            f"<body><h1>Universal Commerce Protocol: {name}</h1><p>This business implements UCP version "
            f"{VERSION}. The specification is at <a href=\"{url}\">{url}</a>; the schemas it "
            f"uses are served under <a href=\"{SCHEMAS_PATH}\">{SCHEMAS_PATH}</a>.</p></body></html>")
