from django.apps import AppConfig


class StoreConfig(AppConfig):
    name = "store"

    def ready(self):
        from . import capabilities  # noqa: F401  (registers the shop's own agent capability)
