"""The pipeline's answers: DRF's Response, written by the one JSON codec (renderers.py)."""
from rest_framework.response import Response

from agents_protocol.core import codec


class PipelineResponse(Response):
    """DRF's Response, for every answer of the pipeline, whatever the transport. Its charset is
    the codec's: as a class attribute, Django reads it instead of parsing it back out of the
    Content-Type header, which it did twice an answer (about 2% of a detail call). A site whose
    RENDERER_CLASSES write another charset gets that one set on each answer as it is rendered
    (AgentView.rendered)."""

    charset = codec.JSON_CHARSET
