"""Bump the configuration revision whenever any configuration row changes (once for a whole
write in `one_revision_bump`); and the order events of checkout sessions (`ucp_order_event`,
agents_protocol/checkout/signals.py)."""
from django.db.models.signals import post_delete, post_save

from agents_protocol.checkout.models import CommerceConfig
from agents_protocol.checkout.signals import ucp_order_event  # noqa: F401 (the app's public name for it)
from agents_protocol.core.config import bump_revision, bumping_once
from agents_protocol.core.models import (
    AuditConfig,
    Capability,
    CapabilityParam,
    Flow,
    FlowStep,
    McpConfig,
    RateLimitConfig,
    SessionConfig,
    SiteProfile,
)

CONFIG_MODELS = (
    SiteProfile, SessionConfig, RateLimitConfig, AuditConfig, McpConfig,
    Capability, CapabilityParam, Flow, FlowStep, CommerceConfig,
)


def config_changed(sender, raw=False, **kwargs):
    if not raw and not bumping_once():
        bump_revision()


# Connected per model: a receiver of every sender's post_delete would keep Django from deleting
# the rows of any other model without first loading them (Collector.can_fast_delete).
for model in CONFIG_MODELS:
    post_save.connect(config_changed, sender=model)
    post_delete.connect(config_changed, sender=model)
