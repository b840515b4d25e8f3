"""Bump the configuration revision whenever any configuration row changes."""
from django.db.models import F
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from .models import (
    AuditConfig,
    Capability,
    CapabilityParam,
    ConfigRevision,
    Flow,
    FlowStep,
    RateLimitConfig,
    SessionConfig,
    SiteProfile,
)

CONFIG_MODELS = (
    SiteProfile, SessionConfig, RateLimitConfig, AuditConfig,
    Capability, CapabilityParam, Flow, FlowStep,
)


def bump_revision():
    updated = ConfigRevision.objects.filter(pk=1).update(number=F("number") + 1)
    if not updated:
        ConfigRevision.objects.get_or_create(pk=1, defaults={"number": 1})


@receiver(post_save)
@receiver(post_delete)
def config_changed(sender, raw=False, **kwargs):
    if sender in CONFIG_MODELS and not raw:
        bump_revision()
