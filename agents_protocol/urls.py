from django.urls import path

from . import views

app_name = "agents_protocol"

urlpatterns = [
    path(".well-known/agents.json", views.agents_json, name="agents_json"),
    path(".well-known/agents.txt", views.agents_txt, name="agents_txt"),
]
