"""The well-known discovery documents. Plain Django views: no session, no CSRF, no templates."""
from django.http import HttpResponse
from django.utils.cache import get_conditional_response
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from .conf import get_setting
from .cors import allow_any_origin
from .publishing import published_document


def request_origin(request):
    return request.build_absolute_uri("/").rstrip("/")


def _document_response(request, kind):
    document = published_document(kind, request_origin(request))
    response = get_conditional_response(request, etag=document.etag) or HttpResponse(
        document.body, content_type=document.content_type
    )
    response["ETag"] = document.etag
    response["Cache-Control"] = f"public, max-age={get_setting('DOCUMENT_MAX_AGE')}, must-revalidate"
    return allow_any_origin(response)


@csrf_exempt
@require_safe
def agents_json(request):
    return _document_response(request, "agents.json")


@csrf_exempt
@require_safe
def agents_txt(request):
    return _document_response(request, "agents.txt")
