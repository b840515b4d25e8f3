"""Bump the configuration revision whenever any configuration row changes (once for a whole
write in `one_revision_bump`); and the order events
of checkout sessions (`ucp_order_event`, agents_protocol/checkout/signals.py)."""
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

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


@receiver(post_save)
@receiver(post_delete)
def config_changed(sender, raw=False, **kwargs):
    if sender in CONFIG_MODELS and not raw and not bumping_once():
        bump_revision()
