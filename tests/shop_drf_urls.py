"""The site's URLconf plus one DRF view of the shop's own that authenticates agent sessions
with the app's authentication class (tests/test_pipeline_steps.py)."""
from django.urls import path
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from acme.urls import urlpatterns as site_urlpatterns
from agents_protocol.http.authentication import AgentSessionAuthentication


class WhoAmI(APIView):
    authentication_classes = [AgentSessionAuthentication]
    permission_classes = [IsAuthenticated]

    def get(self, request):
        return Response({"session_id": request.auth.public_id, "user": str(request.user)})


urlpatterns = [path("shop-api/whoami", WhoAmI.as_view()), *site_urlpatterns]
