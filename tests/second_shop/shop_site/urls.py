from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("agents_protocol.urls")),  # agents_protocol: agents.txt, agents.json and friends
    path("admin/", admin.site.urls),
    path("", include("store.urls")),
]
