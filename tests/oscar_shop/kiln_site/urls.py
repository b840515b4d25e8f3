from django.apps import apps
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("agents_protocol.urls")),  # agents_protocol: agents.txt, agents.json and friends
    path("", include("agents_protocol.contrib.oscar.urls")),  # agents_protocol: the checkout link
    path("admin/", admin.site.urls),
    path("", include(apps.get_app_config("oscar").urls[0])),
]
