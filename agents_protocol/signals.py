"""Bump the configuration revision whenever any configuration row changes; the order events of
checkout sessions.

`ucp_order_event` is sent inside the transaction of an order change, with `checkout` (the
CheckoutSession) and `event` ("order_created", "order_shipped" …): a receiver that enqueues
work in that transaction loses nothing when the change rolls back or commits.
"""
from django.db.models.signals import post_delete, post_save
from django.dispatch import Signal, receiver

from agents_protocol.core.config import bump_revision
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

ucp_order_event = Signal()

CONFIG_MODELS = (
    SiteProfile, SessionConfig, RateLimitConfig, AuditConfig, McpConfig,
    Capability, CapabilityParam, Flow, FlowStep,
)


@receiver(post_save)
@receiver(post_delete)
def config_changed(sender, raw=False, **kwargs):
    if sender in CONFIG_MODELS and not raw:
        bump_revision()
