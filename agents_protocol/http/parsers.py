"""Request bodies: JSON only, through the one codec and its guards (core/codec.py)."""
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser

from agents_protocol.core import codec
from agents_protocol.core.conf import app_settings
from agents_protocol.core.errors import CapabilityError, bad_request


class AgentJSONParser(BaseParser):
    """A JSON body of at most MAX_BODY_BYTES (413 past it): any JSON value, without NaN,
    repeated keys or nesting deeper than 32 (400 invalid_json)."""

    media_type = codec.JSON_MEDIA_TYPE

    def parse(self, stream, media_type=None, parser_context=None):
        limit = app_settings.MAX_BODY_BYTES
        body = stream.read(limit + 1)
        if len(body) > limit:
            raise payload_too_large(limit)
        if not body.strip():
            return {}
        try:
            return codec.decode(body)
        except codec.MalformedJSON as error:
            raise bad_request(str(error), "invalid_json") from None


def check_declared_length(request):
    """Refuse a body whose Content-Length is over MAX_BODY_BYTES before anything else runs (413),
    and a body without one (411): Django reads a chunked body as empty, which would run the
    call without its parameters."""
    limit = app_settings.MAX_BODY_BYTES
    if "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
        raise CapabilityError(411, "length_required", "Send the body with a Content-Length, not chunked.")
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if not (declared.isascii() and declared.isdigit()):
        raise CapabilityError(400, "invalid_request", "The Content-Length header is not a number.")
    if int(declared) > limit:
        raise payload_too_large(limit)


def payload_too_large(limit):
    return CapabilityError(413, "payload_too_large", f"The request body must be at most {limit} bytes.")


def unsupported_media_type():
    return CapabilityError(
        415, "unsupported_media_type", "Send parameters as a JSON object with Content-Type: application/json."
    )


class AgentContentNegotiation(BaseContentNegotiation):
    """Answers are always the first renderer's (agents get JSON whatever Accept says); a body is
    read by the first parser whose media type matches, `application/*+json` counting as JSON."""

    def select_parser(self, request, parsers):
        media_type = (request.content_type or "").split(";")[0].strip().lower()
        for parser in parsers:
            structured_json = parser.media_type == codec.JSON_MEDIA_TYPE and media_type.endswith("+json")
            if media_type == parser.media_type or structured_json:
                return parser
        raise unsupported_media_type()

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
