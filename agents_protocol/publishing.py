"""The discovery documents as ready-to-send bytes, rendered once per revision and origin."""
import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache

from .config import current_config
from .documents.agents_json import build_agents_json
from .documents.agents_txt import build_agents_txt

JSON_CONTENT_TYPE = "application/json; charset=utf-8"
TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"


@dataclass(frozen=True)
class PublishedDocument:
    body: bytes
    content_type: str
    etag: str


def _publish(body, content_type):
    digest = hashlib.sha256(body).hexdigest()[:32]
    return PublishedDocument(body=body, content_type=content_type, etag=f'"{digest}"')


def render_agents_json(config, origin):
    document = build_agents_json(config, origin)
    body = json.dumps(document, indent=2, ensure_ascii=False).encode() + b"\n"
    return _publish(body, JSON_CONTENT_TYPE)


def render_agents_txt(config, origin):
    return _publish(build_agents_txt(config, origin).encode(), TEXT_CONTENT_TYPE)


RENDERERS = {"agents.json": render_agents_json, "agents.txt": render_agents_txt}


@lru_cache(maxsize=64)
def _rendered(kind, config, origin):
    return RENDERERS[kind](config, origin)


def published_document(kind, origin):
    """The document for the current configuration; the config snapshot is part of the cache key."""
    return _rendered(kind, current_config(), origin)
