"""The discovery documents as ready-to-send bytes, rendered once per revision and origin."""
import hashlib
import time
from dataclasses import dataclass, replace
from functools import lru_cache

from agents_protocol.audit.keys import public_key_b64
from agents_protocol.audit.signing import signing_key
from agents_protocol.core import codec
from agents_protocol.core.config import current_config
from agents_protocol.core.examples import capture_examples
from agents_protocol.documents.a2a_card import build_agent_card
from agents_protocol.documents.agents_json import build_agents_json
from agents_protocol.documents.agents_txt import build_agents_txt
from agents_protocol.documents.llms_txt import build_llms_txt
from agents_protocol.documents.openapi import build_openapi
from agents_protocol.documents.pactspec import build_pactspec

TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"


@dataclass(frozen=True)
class PublishedDocument:
    body: bytes
    content_type: str
    etag: str
    complete: bool = True  # False: examples the shop's provider failed to give are missing


def _publish(body, content_type):
    digest = hashlib.sha256(body).hexdigest()[:32]
    return PublishedDocument(body=body, content_type=content_type, etag=f'"{digest}"')


def render_agents_json(config, origin):
    public_key = public_key_b64(signing_key().verify_key) if config.audit.enabled else None
    return _publish_json(build_agents_json(config, origin, public_key))


def render_agents_txt(config, origin):
    return _publish(build_agents_txt(config, origin).encode(), TEXT_CONTENT_TYPE)


def render_llms_txt(config, origin):
    return _publish(build_llms_txt(config, origin).encode(), TEXT_CONTENT_TYPE)


def _publish_json(document):
    return _publish(codec.encode_document(document), codec.JSON_CONTENT_TYPE)


def render_pactspec(config, origin):
    return _with_examples(build_pactspec, config, origin)


def render_agent_card(config, origin):
    return _with_examples(build_agent_card, config, origin)


class Uncached(Exception):
    """A document to answer this once and not keep: its examples are missing because the shop's
    provider failed, perhaps only for a moment."""

    def __init__(self, document):
        super().__init__("A document rendered without some of its examples")
        self.document = document


def _with_examples(build, config, origin):
    failed = []
    document = _publish_json(build(config, origin, capture_examples(config, origin, failed)))
    if failed:
        raise Uncached(replace(document, complete=False))
    return document


def render_openapi(config, origin):
    return _publish_json(build_openapi(config, origin))


RENDERERS = {
    "agents.json": render_agents_json,
    "agents.txt": render_agents_txt,
    "llms.txt": render_llms_txt,
    "pactspec.json": render_pactspec,
    "agent-card.json": render_agent_card,
    "openapi.json": render_openapi,
}


# A document rendered without some examples is answered for this long before the provider is asked
# again: long enough that public fetches never hammer a failing shop, short enough to heal soon.
INCOMPLETE_RETRY_SECONDS = 10
_incomplete = {}  # (kind, config, origin) → (document, seconds_now() after which to render again)


def seconds_now():
    """The clock INCOMPLETE_RETRY_SECONDS are counted on (tests move it)."""
    return time.monotonic()


@lru_cache(maxsize=64)
def _rendered(kind, config, origin):
    return RENDERERS[kind](config, origin)


def published_document(kind, origin):
    """The document for the current configuration; the config snapshot is part of the cache key
    (lru_cache keeps no render that raised: an Uncached one is kept INCOMPLETE_RETRY_SECONDS)."""
    key = (kind, current_config(), origin)
    kept = _incomplete.get(key)
    if kept is not None and seconds_now() < kept[1]:
        return kept[0]
    try:
        document = _rendered(*key)
    except Uncached as incomplete:
        if len(_incomplete) >= 64:
            _incomplete.clear()
        _incomplete[key] = (incomplete.document, seconds_now() + INCOMPLETE_RETRY_SECONDS)
        return incomplete.document
    _incomplete.pop(key, None)
    return document
