"""API keys of platforms: issued (the raw key returned once), found by hash, touched, revoked."""
import hashlib
import secrets
from datetime import timedelta

from django.utils import timezone

from agents_protocol.platforms.models import PlatformKey

LIVE_PREFIX, TEST_PREFIX = "acp_live_", "acp_test_"
TOUCH_EVERY = timedelta(seconds=60)  # last_used_at is written at most once a minute per key


def hash_key(raw_key):
    return hashlib.sha256(raw_key.encode()).hexdigest()


def issue_key(platform):
    """A new key for `platform`: the raw key, to show once (only its hash is kept)."""
    raw_key = f"{TEST_PREFIX if platform.test_mode else LIVE_PREFIX}{secrets.token_urlsafe(32)}"
    PlatformKey.objects.create(platform=platform, prefix=raw_key[:len(LIVE_PREFIX) + 6], key_hash=hash_key(raw_key))
    return raw_key


def live_key(raw_key):
    """The unrevoked key `raw_key` of a live platform (touched), else None."""
    key = PlatformKey.objects.select_related("platform").filter(key_hash=hash_key(raw_key),
                                                                 revoked_at__isnull=True).first()
    if key is None or not key.platform.is_live:
        return None
    now = timezone.now()
    if key.last_used_at is None or now - key.last_used_at >= TOUCH_EVERY:
        PlatformKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
    return key


def revoke(keys):
    """Revoke the keys of the queryset `keys` not yet revoked: how many were."""
    return keys.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
