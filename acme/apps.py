from django.apps import AppConfig


class AcmeConfig(AppConfig):
    name = "acme"
    verbose_name = "Acme Ceramics site"

    def ready(self):
        from acme import checks  # noqa: F401 (registers the deploy check)
