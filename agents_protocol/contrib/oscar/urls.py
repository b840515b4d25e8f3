"""Include at the root beside Oscar's URLs: path("", include("agents_protocol.contrib.oscar.urls"))."""
from django.urls import path

from agents_protocol.contrib.oscar import views

app_name = "agents_protocol_oscar"

urlpatterns = [
    path("agents/checkout/<str:token>/", views.open_checkout_link, name="checkout-link"),
]
