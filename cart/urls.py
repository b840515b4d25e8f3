from django.urls import path

from . import views

app_name = "cart"
urlpatterns = [
    path("<str:token>/", views.handoff, name="handoff"),
]
