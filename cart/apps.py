from django.apps import AppConfig


class CartConfig(AppConfig):
    name = "cart"
    verbose_name = "Carts and orders"
