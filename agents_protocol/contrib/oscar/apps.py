from django.apps import AppConfig


class OscarAgentsConfig(AppConfig):
    name = "agents_protocol.contrib.oscar"
    label = "agents_protocol_oscar"
    verbose_name = "Agents protocol for Oscar"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from agents_protocol.contrib.oscar import checks, receivers  # noqa: F401  (registers them)
