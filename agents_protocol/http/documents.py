"""The well-known discovery documents. Plain Django views: no session, no CSRF, no templates."""
from django.core.exceptions import DisallowedHost
from django.http import HttpResponse, StreamingHttpResponse
from django.utils import timezone
from django.utils.cache import get_conditional_response
from django.views.decorators.csrf import csrf_exempt

from agents_protocol.core import codec
from agents_protocol.core.conf import app_settings
from agents_protocol.core.config import current_config
from agents_protocol.core.errors import CapabilityError, envelope_of
from agents_protocol.core.provider import CallContext, get_provider
from agents_protocol.documents import acp_feed as acp_feed_document
from agents_protocol.documents.interop import site_base
from agents_protocol.http.client import request_origin
from agents_protocol.http.cors import allow_any_origin, preflight_response
from agents_protocol.http.exceptions import refusal_for
from agents_protocol.http.publishing import published_document

READ_METHODS = ("GET", "HEAD")


def _document_response(request, kind):
    if request.method == "OPTIONS":
        return preflight_response([*READ_METHODS, "OPTIONS"])
    if request.method not in READ_METHODS:
        return _method_not_allowed()
    try:
        origin = request_origin(request)
    except DisallowedHost as error:
        return allow_any_origin(_refusal(refusal_for(error)))
    document = published_document(kind, origin)
    response = get_conditional_response(request, etag=document.etag) or HttpResponse(
        document.body, content_type=document.content_type
    )
    if response.status_code == 412:
        response = _refusal(CapabilityError(412, "precondition_failed", "If-Match names another version of "
                                            "this document; GET it again for its current ETag."))
    response["ETag"] = document.etag
    # An incomplete document (a failing provider left examples out) is for this answer only: no
    # cache, DocumentReplay's included, may keep it past INCOMPLETE_RETRY_SECONDS.
    response["Cache-Control"] = (f"public, max-age={app_settings.DOCUMENT_MAX_AGE}, must-revalidate"
                                 if document.complete else "no-store")
    return allow_any_origin(response)


def _method_not_allowed():
    response = _refusal(CapabilityError(405, "method_not_allowed", "This document is read-only; use GET."))
    response["Allow"] = "GET, HEAD, OPTIONS"
    return allow_any_origin(response)


def _refusal(refusal):
    return HttpResponse(codec.encode(envelope_of(refusal)), status=refusal.status, content_type=codec.JSON_CONTENT_TYPE)


def switched_document(is_on, when_off, max_age):
    """A decorator: a read-only view answering GET and HEAD with `build(request, **kwargs)` (an
    HttpResponse), cacheable for `max_age` seconds, from any origin; while `is_on()` is false the
    envelope's 404 saying `when_off`. Refusals (405, 404, an unknown Host) in the envelope."""
    def decorate(build):
        @csrf_exempt
        def serve(request, **kwargs):
            if request.method == "OPTIONS":
                return preflight_response([*READ_METHODS, "OPTIONS"])
            try:
                if request.method not in READ_METHODS:
                    raise CapabilityError(405, "method_not_allowed", "This document is read-only; use GET.",
                                          headers={"Allow": "GET, HEAD, OPTIONS"})
                if not is_on():
                    raise CapabilityError(404, "not_found", when_off)
                response = build(request, **kwargs)
                response["Cache-Control"] = f"public, max-age={max_age}"
            except (CapabilityError, DisallowedHost) as error:
                refusal = refusal_for(error)
                response = _refusal(refusal)
                for name, value in refusal.headers.items():
                    response[name] = value
            return allow_any_origin(response)

        return serve

    return decorate


def document_view(kind):
    """The view serving the published document `kind` (a key of publishing.RENDERERS)."""

    @csrf_exempt
    def serve(request):
        return _document_response(request, kind)

    serve.document_kind = kind
    return serve


@csrf_exempt
def acp_feed(request, name):
    """The ACP product feed's `products.jsonl` (streamed as the catalog is read) or `metadata.json`,
    when ACP_PRODUCT_FEED is on; 404 otherwise."""
    if not app_settings.ACP_PRODUCT_FEED or name not in (acp_feed_document.PRODUCTS_FILE,
                                                          acp_feed_document.METADATA_FILE):
        return allow_any_origin(_refusal(CapabilityError(404, "not_found", "No such document.")))
    if request.method == "OPTIONS":
        return preflight_response([*READ_METHODS, "OPTIONS"])
    if request.method not in READ_METHODS:
        return _method_not_allowed()
    try:
        origin = request_origin(request)
    except DisallowedHost as error:
        return allow_any_origin(_refusal(refusal_for(error)))
    config = current_config()
    if name == acp_feed_document.METADATA_FILE:
        response = HttpResponse(codec.encode_document(acp_feed_document.feed_metadata(config, timezone.now())),
                                content_type=codec.JSON_CONTENT_TYPE)
    else:
        context = CallContext(session=None, origin=site_base(config, origin))
        items = get_provider().catalog_items(context)
        response = StreamingHttpResponse(acp_feed_document.product_lines(items, config.site.name),
                                         content_type=acp_feed_document.JSONL_CONTENT_TYPE)
    response["Cache-Control"] = f"public, max-age={app_settings.DOCUMENT_MAX_AGE}"
    return allow_any_origin(response)

def is_document_view(view):
    """True for a view document_view made."""
    return getattr(view, "document_kind", None) is not None
