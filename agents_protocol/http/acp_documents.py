"""/.well-known/acp.json: a plain Django view like the other discovery documents, readable from
any origin without a key, cacheable for an hour; 404 while admin has ACP turned off."""
from django.core.exceptions import DisallowedHost
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt

from agents_protocol.checkout.models import CommerceConfig
from agents_protocol.core import codec
from agents_protocol.core.config import current_config
from agents_protocol.core.errors import CapabilityError, envelope_of, not_found
from agents_protocol.documents import acp_discovery
from agents_protocol.http.client import request_origin
from agents_protocol.http.cors import allow_any_origin, preflight_response
from agents_protocol.http.exceptions import refusal_for

READ_METHODS = ("GET", "HEAD")


@csrf_exempt
def discovery(request):
    if request.method == "OPTIONS":
        return preflight_response([*READ_METHODS, "OPTIONS"])
    try:
        if request.method not in READ_METHODS:
            raise CapabilityError(405, "method_not_allowed", "This document is read-only; use GET.",
                                  headers={"Allow": "GET, HEAD, OPTIONS"})
        commerce = CommerceConfig.load()
        if not commerce.acp_enabled:
            raise not_found("This shop does not serve the Agentic Commerce Protocol.")
        document = acp_discovery.discovery_document(commerce, current_config(), request_origin(request))
        response = HttpResponse(codec.encode(document), content_type=codec.JSON_CONTENT_TYPE)
        response["Cache-Control"] = f"public, max-age={acp_discovery.MAX_AGE}"
    except (CapabilityError, DisallowedHost) as error:
        refusal = refusal_for(error)
        response = HttpResponse(codec.encode(envelope_of(refusal)), status=refusal.status,
                                content_type=codec.JSON_CONTENT_TYPE)
        for name, value in refusal.headers.items():
            response[name] = value
    return allow_any_origin(response)
