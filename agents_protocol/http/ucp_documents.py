"""/.well-known/ucp (the business profile) and the schema and spec pages its URLs name.

Plain Django views like the other discovery documents (http/documents.py): readable from any
origin, the envelope's 404 while admin has UCP turned off (CommerceConfig) or for a name the
profile does not use.
"""
from django.core.exceptions import DisallowedHost
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt

from agents_protocol.checkout.models import CommerceConfig
from agents_protocol.core import codec
from agents_protocol.core.errors import CapabilityError, envelope_of, not_found
from agents_protocol.documents import ucp_profile
from agents_protocol.http.client import request_origin
from agents_protocol.http.cors import allow_any_origin, preflight_response
from agents_protocol.http.exceptions import refusal_for
from agents_protocol.outbound.signing import public_jwk

READ_METHODS = ("GET", "HEAD")
MAX_AGE = 300


def read_only(build):
    """A view answering GET and HEAD with `build(request, **kwargs)` (an HttpResponse)."""
    @csrf_exempt
    def serve(request, **kwargs):
        if request.method == "OPTIONS":
            return preflight_response([*READ_METHODS, "OPTIONS"])
        try:
            if request.method not in READ_METHODS:
                raise CapabilityError(405, "method_not_allowed", "This document is read-only; use GET.",
                                      headers={"Allow": "GET, HEAD, OPTIONS"})
            if not CommerceConfig.load().ucp_enabled:
                raise not_found("This shop does not serve the Universal Commerce Protocol.")
            response = build(request, **kwargs)
            response["Cache-Control"] = f"public, max-age={MAX_AGE}"
        except (CapabilityError, DisallowedHost) as error:
            refusal = refusal_for(error)
            response = HttpResponse(codec.encode(envelope_of(refusal)), status=refusal.status,
                                    content_type=codec.JSON_CONTENT_TYPE)
            for name, value in refusal.headers.items():
                response[name] = value
        return allow_any_origin(response)

    return serve


@read_only
def profile(request):
    profile = ucp_profile.business_profile(request_origin(request), signing_keys=[public_jwk()])
    return HttpResponse(codec.encode(profile), content_type=codec.JSON_CONTENT_TYPE)


@read_only
def schema(request, name):
    if name not in ucp_profile.schema_names():
        raise not_found(f"No schema {name!r}; /.well-known/ucp names the ones served.")
    return HttpResponse((ucp_profile.SCHEMAS_DIR / name).read_bytes(), content_type="application/schema+json")


@read_only
def spec(request, name):
    if name not in ucp_profile.spec_names():
        raise not_found(f"No page {name!r}; /.well-known/ucp names the ones served.")
    return HttpResponse(ucp_profile.spec_page(name), content_type="text/html; charset=utf-8")
