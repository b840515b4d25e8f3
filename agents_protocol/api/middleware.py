"""Send requests for configured endpoints straight to the agent API view.

Endpoints are data (admin can move them), so they cannot live in a static URLconf.
This middleware sits early in the stack: agent calls skip sessions, CSRF, auth and
messages, which they do not use.
"""
from django.db import DatabaseError
from django.http import HttpResponse

from ..config import current_config
from .envelope import EnvelopeRenderer
from .routing import API_PREFIX, is_api_path
from .views import agent_api_view


class AgentsApiMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            is_api = is_api_path(current_config(), request.path)
        except DatabaseError:
            if not request.path.startswith(API_PREFIX):
                raise
            return backend_unavailable()
        if not is_api:
            return self.get_response(request)
        response = agent_api_view(request)
        # Outside the URLconf nothing renders DRF responses for us.
        return response.render() if hasattr(response, "render") else response


def backend_unavailable():
    body = {"ok": False, "error": "The shop's database is unavailable; retry shortly.", "code": "backend_unavailable"}
    response = HttpResponse(EnvelopeRenderer().render(body), status=503, content_type="application/json")
    response["Retry-After"] = "5"
    response["Access-Control-Allow-Origin"] = "*"
    return response
