"""UCP platform profiles: the document a platform names in `UCP-Agent: profile="…"`.

Fetched through the guarded fetch, checked, and kept in the default cache for at most
PROFILE_CACHE_SECONDS (less when the profile's Cache-Control says so); a profile that
cannot be used is remembered briefly too, so a slow URL repeated in every request costs one
timeout, not one per request. Version negotiation is the spec's (overview, "Versioning"): a
platform newer than this business is refused with `version_unsupported`.
"""
import hashlib
import json
import re
from functools import lru_cache
from urllib.parse import urlsplit

from django.core.cache import cache

from agents_protocol.core.errors import CapabilityError
from agents_protocol.documents.ucp_profile import ORDER as ORDER_CAPABILITY
from agents_protocol.documents.ucp_profile import VERSION as UCP_VERSION
from agents_protocol.outbound.addresses import OutboundRefused
from agents_protocol.outbound.fetch import fetch

PROFILE_REDIRECTS = 3
PROFILE_CACHE_SECONDS = 300
REFUSAL_CACHE_SECONDS = 30

_ENTITY = {
    "type": "object",
    "required": ["version"],
    "properties": {
        "version": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
        "config": {"type": "object"},
    },
}
# The spec's registry (name → entries) and the list of named entries of earlier drafts, which the
# official conformance suite's mock platform still serves.
PLATFORM_PROFILE_SCHEMA = {
    "type": "object",
    "required": ["ucp"],
    "properties": {
        "ucp": {
            "type": "object",
            "required": ["version"],
            "properties": {
                "version": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                "capabilities": {"anyOf": [
                    {"type": "object", "additionalProperties": {"type": "array", "items": _ENTITY}},
                    {"type": "array", "items": {"allOf": [_ENTITY, {"required": ["name"],
                                                                    "properties": {"name": {"type": "string"}}}]}},
                ]},
            },
        },
        "signing_keys": {"type": "array", "items": {
            "type": "object", "required": ["kid", "kty"],
            "properties": {"kid": {"type": "string"}, "kty": {"type": "string"}}}},
    },
}
_MAX_AGE = re.compile(r"(?:^|,)\s*max-age\s*=\s*(\d+)", re.IGNORECASE)


@lru_cache(maxsize=1)
def profile_validator():
    """Built on the first profile fetched, not at start-up: jsonschema costs a process about 35 ms to import."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(PLATFORM_PROFILE_SCHEMA)


def invalid_profile(reason):
    return CapabilityError(400, "invalid_profile", f"The platform profile named in UCP-Agent cannot be used: {reason}")


def fetched_profile(url):
    """The profile at `url`: `{"ucp": {"version", "capabilities": {name: [entries]}, …}, "signing_keys"?}`.

    CapabilityError 400 `invalid_profile` when it may not be fetched, does not answer in time,
    is too large, is not JSON or is not a platform profile.
    """
    key = "agents_protocol:ucp-platform-profile:" + hashlib.sha256(url.encode()).hexdigest()
    kept = cache.get(key)
    if kept is None:
        kept, seconds = _fetch_and_check(url)
        if seconds:  # a max-age of 0 keeps nothing
            cache.set(key, kept, seconds)
    if "refused" in kept:
        raise invalid_profile(kept["refused"])
    return kept["profile"]


def _fetch_and_check(url):
    """({"profile": …} or {"refused": reason}, seconds to keep it)."""
    try:
        answer = fetch(url, headers={"Accept": "application/json"}, redirects=PROFILE_REDIRECTS)
        profile = _checked(answer)
    except OutboundRefused as refusal:
        return {"refused": str(refusal)}, REFUSAL_CACHE_SECONDS
    max_age = _MAX_AGE.search(answer.headers.get("cache-control", ""))
    return {"profile": profile}, min(PROFILE_CACHE_SECONDS, int(max_age.group(1))) if max_age else PROFILE_CACHE_SECONDS


def _checked(answer):
    if answer.status != 200:
        raise OutboundRefused(f"it answered {answer.status}.")
    media_type = answer.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/json" and not media_type.endswith("+json"):
        raise OutboundRefused(f"it is {media_type or 'untyped'}, not JSON.")
    try:
        document = json.loads(answer.body)
    except (ValueError, RecursionError):
        raise OutboundRefused("it is not valid JSON.") from None
    error = next(iter(profile_validator().iter_errors(document)), None)
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "the document"
        raise OutboundRefused(f"it is not a UCP platform profile ({where}: {error.message[:200]}).")
    return _normalized(document)


def _normalized(document):
    ucp = dict(document["ucp"])
    capabilities = ucp.get("capabilities", {})
    if isinstance(capabilities, list):
        registry = {}
        for entry in capabilities:
            registry.setdefault(entry["name"], []).append({k: v for k, v in entry.items() if k != "name"})
        ucp["capabilities"] = registry
    else:
        ucp["capabilities"] = capabilities
    normalized = {"ucp": ucp}
    if "signing_keys" in document:
        normalized["signing_keys"] = document["signing_keys"]
    return normalized


def webhook_url(profile):
    """The order capability's `config.webhook_url` (order.md, "Webhook URL Configuration"), or None."""
    for entry in profile["ucp"]["capabilities"].get(ORDER_CAPABILITY, []):
        url = entry.get("config", {}).get("webhook_url")
        if isinstance(url, str) and scheme_of(url) in ("http", "https"):
            return url
    return None


def scheme_of(url):
    """The URL's scheme, or None for text urllib cannot split ("http://[::1/x": an unclosed IPv6 host)."""
    try:
        return urlsplit(url).scheme
    except ValueError:
        return None


def negotiated_version(platform_version):
    """The version this business processes a request with: its own, for a platform of that
    version or older; CapabilityError 400 `version_unsupported` for a newer one."""
    if platform_version is not None and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", platform_version):
        raise CapabilityError(400, "version_unsupported", f"{platform_version!r} is not a UCP version (YYYY-MM-DD).")
    if platform_version is not None and platform_version > UCP_VERSION:
        raise CapabilityError(400, "version_unsupported", f"Version {platform_version} is not supported. "
                                                          f"This business implements version {UCP_VERSION}.")
    return UCP_VERSION


_AGENT_FIELD = re.compile(r'([a-z*][a-z0-9_.*-]*)\s*=\s*("(?:[^"\\]|\\.)*"|[^;,\s]*)')


def ucp_agent_fields(header):
    """`UCP-Agent`'s keys and parameters (RFC 8941 dictionary syntax), e.g. {"profile": url, "version": v}."""
    return {name: value[1:-1].replace('\\"', '"').replace("\\\\", "\\") if value.startswith('"') else value
            for name, value in _AGENT_FIELD.findall(header or "")}


def platform_profile_of(header):
    """The platform profile named by a `UCP-Agent` header, fetched and checked, or None when it names none.

    A `profile` that is no http(s) URL names nothing to fetch (the official suite sends
    `profile="..."` and expects the request served). The header's `version` parameter is checked
    first, before any fetch, then the profile's: CapabilityError `version_unsupported` for one
    newer than this business, `invalid_profile` for a profile that cannot be used.
    """
    fields = ucp_agent_fields(header)
    negotiated_version(fields.get("version"))
    url = fields.get("profile", "")
    if url.lower().startswith(("http:", "https:")) and scheme_of(url) is None:
        raise invalid_profile("its URL is malformed.")
    profile = fetched_profile(url) if scheme_of(url) in ("http", "https") else None
    if profile is not None:
        negotiated_version(profile["ucp"]["version"])
    return profile
