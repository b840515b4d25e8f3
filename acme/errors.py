"""The site's own error page: a database outage is a 503 "back shortly", anything else a 500.

Both pages are standalone templates that need no database, so they render during an outage.
"""
import sys

from django.http import HttpResponse
from django.template.loader import render_to_string

from agents_protocol.core.errors import is_database_outage

RETRY_AFTER_SECONDS = 5


def server_error(request):
    if is_database_outage(sys.exception()):
        response = HttpResponse(render_to_string("503.html"), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    return HttpResponse(render_to_string("500.html"), status=500)
