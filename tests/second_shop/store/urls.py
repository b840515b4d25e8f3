from django.urls import path

from . import views

app_name = "store"

urlpatterns = [
    path("review/<str:token>/", views.review_order, name="review"),
]
