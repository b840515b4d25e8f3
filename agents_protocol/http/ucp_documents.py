"""/.well-known/ucp (the business profile) and the schema and spec pages its URLs name.

Plain Django views like the other discovery documents (http/documents.py): readable from any
origin, the envelope's 404 while admin has UCP turned off (CommerceConfig) or for a name the
profile does not use.
"""
from django.http import HttpResponse

from agents_protocol.checkout.models import CommerceConfig
from agents_protocol.core import codec
from agents_protocol.core.errors import not_found
from agents_protocol.documents import ucp_profile
from agents_protocol.http.client import request_origin
from agents_protocol.http.documents import switched_document
from agents_protocol.outbound.signing import public_jwk

MAX_AGE = 300


read_only = switched_document(lambda: CommerceConfig.load().ucp_enabled,
                              "This shop does not serve the Universal Commerce Protocol.", MAX_AGE)


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
