"""/.well-known/acp.json (rfc.discovery.md): whether and how this shop serves the Agentic
Commerce Protocol, from the database configuration (CommerceConfig: the switch, the versions
and interventions admin picked) and what the shop's provider supports. No merchant identifier,
payment handler or key: those are the session's (capabilities on POST /checkout_sessions)."""
from agents_protocol.checkout import services
from agents_protocol.documents.interop import site_base

PATH = "/.well-known/acp.json"
MAX_AGE = 3600  # the RFC's minimum recommendation: the document changes rarely


def discovery_document(commerce, config, origin):
    capabilities = {"services": ["checkout"]}
    if services.offers_discounts():
        capabilities["extensions"] = [{"name": "discount"}]
    if commerce.acp_intervention_types:
        capabilities["intervention_types"] = list(commerce.acp_intervention_types)
    document = {
        "protocol": {"name": "acp", "version": commerce.acp_versions[-1],
                     "supported_versions": list(commerce.acp_versions)},
        "api_base_url": site_base(config, origin),
        "transports": ["rest"],
        "capabilities": capabilities,
    }
    if config.site.docs_url:
        document["protocol"]["documentation_url"] = config.site.docs_url
    return document
