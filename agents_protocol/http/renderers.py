"""Every answer of the pipeline is written by the one JSON codec (core/codec.py)."""
from rest_framework.renderers import BaseRenderer

from agents_protocol.core import codec


class AgentJSONRenderer(BaseRenderer):
    media_type = "application/json"
    format = "json"
    charset = None  # JSON is UTF-8 by definition (RFC 8259): no parameter in the Content-Type

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return codec.encode(data)
