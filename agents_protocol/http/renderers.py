"""Every answer of the pipeline is written by the one JSON codec (core/codec.py)."""
from rest_framework.renderers import BaseRenderer

from agents_protocol.core import codec


class AgentJSONRenderer(BaseRenderer):
    media_type = codec.JSON_MEDIA_TYPE
    format = "json"
    charset = codec.JSON_CHARSET

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return codec.encode(data)
