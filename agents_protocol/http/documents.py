"""The well-known discovery documents. Plain Django views: no session, no CSRF, no templates."""
from django.http import HttpResponse, JsonResponse
from django.utils.cache import get_conditional_response
from django.views.decorators.csrf import csrf_exempt

from agents_protocol.core.conf import get_setting
from agents_protocol.http.cors import allow_any_origin, preflight_response
from agents_protocol.http.publishing import published_document

READ_METHODS = ("GET", "HEAD")


def request_origin(request):
    """`scheme://host[:port]` the request was made to; get_host() refuses a host outside
    ALLOWED_HOSTS. (What build_absolute_uri("/") gives without its slash, at half the cost.)"""
    return f"{request.scheme}://{request.get_host()}"


def _document_response(request, kind):
    if request.method == "OPTIONS":
        return preflight_response([*READ_METHODS, "OPTIONS"])
    if request.method not in READ_METHODS:
        return _method_not_allowed()
    document = published_document(kind, request_origin(request))
    response = get_conditional_response(request, etag=document.etag) or HttpResponse(
        document.body, content_type=document.content_type
    )
    response["ETag"] = document.etag
    response["Cache-Control"] = f"public, max-age={get_setting('DOCUMENT_MAX_AGE')}, must-revalidate"
    return allow_any_origin(response)


def _method_not_allowed():
    response = JsonResponse(
        {"ok": False, "error": "This document is read-only; use GET.", "code": "method_not_allowed"}, status=405
    )
    response["Allow"] = "GET, HEAD, OPTIONS"
    return allow_any_origin(response)


def document_view(kind):
    """The view serving the published document `kind` (a key of publishing.RENDERERS)."""

    @csrf_exempt
    def serve(request):
        return _document_response(request, kind)

    return serve
