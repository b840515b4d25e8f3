from django.apps import AppConfig


class AgentsProtocolConfig(AppConfig):
    name = "agents_protocol"
    verbose_name = "Agents protocol"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import builtin_handlers, checks, signals  # noqa: F401  (registers handlers, checks, receivers)
