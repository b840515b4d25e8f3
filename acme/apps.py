from django.apps import AppConfig


class AcmeConfig(AppConfig):
    name = "acme"
    verbose_name = "Acme Ceramics site"
