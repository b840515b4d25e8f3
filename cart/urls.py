from django.urls import path

app_name = "cart"
urlpatterns = []
