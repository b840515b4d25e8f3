"""A shop with a page of its own at /mcp, listed before the app's URLs
(tests/test_interop_mcp.py: the app answers there only while MCP is served at /mcp)."""
from django.http import HttpResponse
from django.urls import path

from acme.urls import urlpatterns as site_urlpatterns


def shop_page(request):
    return HttpResponse("Our Master Craftsman Programme", content_type="text/plain")


urlpatterns = [path("mcp", shop_page), *site_urlpatterns]
