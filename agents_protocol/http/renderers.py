"""Every answer of the pipeline is written by the one JSON codec (core/codec.py)."""
from rest_framework.renderers import BaseRenderer

from agents_protocol.core import codec

JSON_MEDIA_TYPE = "application/json"
JSON_CHARSET = "utf-8"
# What every JSON answer of the app says it is: the pipeline's (API, A2A, PactSpec), the
# documents' and the refusals built outside the pipeline. The protocol's interaction API asks
# for exactly this ("Always `application/json; charset=utf-8`"); the codec writes UTF-8.
JSON_CONTENT_TYPE = f"{JSON_MEDIA_TYPE}; charset={JSON_CHARSET}"


class AgentJSONRenderer(BaseRenderer):
    media_type = JSON_MEDIA_TYPE
    format = "json"
    charset = JSON_CHARSET

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return codec.encode(data)
