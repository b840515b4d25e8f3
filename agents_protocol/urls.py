import re

from django.urls import path, re_path

from agents_protocol.core.models import MCP_ENDPOINTS
from agents_protocol.core.reserved import ACP_FEED_PATH, INSPECTOR_PATH
from agents_protocol.documents import acp_discovery, interop, ucp_profile
from agents_protocol.http import documents as views
from agents_protocol.http import views as agent_views
from agents_protocol.http.routing import AGENTS_NAMESPACE
from agents_protocol.inspector import views as inspector
from agents_protocol.http import acp_documents, ucp_documents
from agents_protocol.transports import a2a, acp, mcp_route, ucp, ucp_testing
from agents_protocol.transports import pactspec as pactspec_views

app_name = "agents_protocol"


def at(document_path, suffix=""):
    return document_path.lstrip("/") + suffix


urlpatterns = [
    path(at(interop.AGENTS_JSON_PATH), views.document_view("agents.json"), name="agents_json"),
    path(at(interop.AGENTS_TXT_PATH), views.document_view("agents.txt"), name="agents_txt"),
    path(at(interop.LLMS_TXT_PATH), views.document_view("llms.txt"), name="llms_txt"),
    path(at(interop.PACTSPEC_PATH), views.document_view("pactspec.json"), name="pactspec"),
    path(at(interop.AGENT_CARD_PATH), views.document_view("agent-card.json"), name="agent_card"),
    path(at(interop.OPENAPI_PATH), views.document_view("openapi.json"), name="openapi"),
    path(at(interop.A2A_RPC_PATH), a2a.rpc, name="a2a_rpc"),
    path(at(interop.PACTSPEC_INVOKE_PATH), pactspec_views.invoke, name="pactspec_dispatch"),
    path(at(interop.PACTSPEC_INVOKE_PATH, "/<str:skill_id>"), pactspec_views.invoke, name="pactspec_skill"),
    path(at(interop.PACTSPEC_INVOKE_PATH, "/<str:skill_id>/tests.json"), pactspec_views.test_suite,
         name="pactspec_test_suite"),
    path(at(ACP_FEED_PATH, "<str:name>"), views.acp_feed, name="acp_feed"),
    path(at(INSPECTOR_PATH, "<str:secret>"), inspector.page, name="inspector"),
    path(at(INSPECTOR_PATH, "<str:secret>/state"), inspector.state, name="inspector_state"),
    path(at(INSPECTOR_PATH, "<str:secret>/artifact"), inspector.artifact, name="inspector_artifact"),
    # Both paths the MCP server may be configured at; the view answers at the configured one only.
    *[path(at(endpoint), mcp_route.endpoint, name=f"mcp_{number}") for number, endpoint in enumerate(MCP_ENDPOINTS)],
    path(at(ucp_profile.PROFILE_PATH), ucp_documents.profile, name="ucp_profile"),
    path(at(ucp_profile.SCHEMAS_PATH, "<str:name>"), ucp_documents.schema, name="ucp_schema"),
    path(at(ucp_profile.SPEC_PATH, "<str:name>"), ucp_documents.spec, name="ucp_spec"),
    # UCP's REST binding at the site's root, where its endpoint (the site) puts it.
    path(ucp.CHECKOUT_SESSIONS, ucp.view, {"kind": ucp.CHECKOUT_SESSIONS}, name="ucp_checkout_sessions"),
    path(f"{ucp.CHECKOUT_SESSIONS}/<str:target>", ucp.view, {"kind": ucp.CHECKOUT_SESSIONS}, name="ucp_checkout"),
    path(f"{ucp.CHECKOUT_SESSIONS}/<str:target>/<str:action>", ucp.view, {"kind": ucp.CHECKOUT_SESSIONS},
         name="ucp_checkout_action"),
    path(f"{ucp.ORDERS}/<str:target>", ucp.view, {"kind": ucp.ORDERS}, name="ucp_order"),
    path(at(acp_discovery.PATH), acp_documents.discovery, name="acp_discovery"),
    # ACP's REST binding at the site's root, its api_base_url.
    path("checkout_sessions", acp.view, name="acp_checkout_sessions"),
    path("checkout_sessions/<str:target>", acp.view, name="acp_checkout"),
    path("checkout_sessions/<str:target>/<str:action>", acp.view, name="acp_checkout_action"),
    path("testing/simulate-shipping/<str:order_id>", ucp_testing.simulate_shipping, name="ucp_simulate_shipping"),
    # Last: anything else under the namespace is the envelope's 404, not the site's HTML page.
    re_path(rf"^{re.escape(at(AGENTS_NAMESPACE.rstrip('/')))}(/.*)?$", agent_views.unknown_endpoint,
            name="unknown_endpoint"),
]
