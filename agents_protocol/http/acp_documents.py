"""/.well-known/acp.json: a plain Django view like the other discovery documents, readable from
any origin without a key, cacheable for an hour; 404 while admin has ACP turned off."""
from django.http import HttpResponse

from agents_protocol.checkout.models import CommerceConfig
from agents_protocol.core import codec
from agents_protocol.core.config import current_config
from agents_protocol.documents import acp_discovery
from agents_protocol.http.client import request_origin
from agents_protocol.http.documents import switched_document


@switched_document(lambda: CommerceConfig.load().acp_enabled,
                   "This shop does not serve the Agentic Commerce Protocol.", acp_discovery.MAX_AGE)
def discovery(request):
    document = acp_discovery.discovery_document(CommerceConfig.load(), current_config(), request_origin(request))
    return HttpResponse(codec.encode(document), content_type=codec.JSON_CONTENT_TYPE)
