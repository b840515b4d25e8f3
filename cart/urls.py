from django.urls import path

from . import views

app_name = "cart"
urlpatterns = [
    path("<str:token>/", views.handoff, name="handoff"),
    path("<str:token>/lines/<int:line_id>/reduce/", views.reduce_line, name="reduce_line"),
    path("<str:token>/cancel/", views.cancel, name="cancel"),
]
