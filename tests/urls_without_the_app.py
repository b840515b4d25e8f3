"""A site URLconf without agents_protocol.urls (tests/test_discovery_documents.py: the middleware
answers the documents from the app's own table)."""
from django.http import HttpResponse
from django.urls import path


def home(request):
    return HttpResponse("Home", content_type="text/plain")


urlpatterns = [path("", home)]
