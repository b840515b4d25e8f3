from django.apps import AppConfig


class AgentsProtocolConfig(AppConfig):
    name = "agents_protocol"
    verbose_name = "Agents protocol"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from agents_protocol import checks, signals  # noqa: F401  (registers checks and receivers)
        from agents_protocol.core import handlers  # noqa: F401  (registers the built-in handlers)
        from agents_protocol.transports import acp_events, ucp_events

        signals.ucp_order_event.connect(ucp_events.deliver_to_platform, dispatch_uid="agents_protocol.ucp_webhooks")
        signals.ucp_order_event.connect(acp_events.deliver_to_platform, dispatch_uid="agents_protocol.acp_webhooks")
