"""Platforms as principals: an agent platform (an ACP client) that buys for many buyers from
few addresses, identified by API keys staff issue in admin, with limits of its own.

A key is shown once when issued and stored only as its SHA-256 (a random 32-byte secret needs
no slow hash); revoking it, or the platform expiring or being turned off, refuses it (401).
A platform that registered an Ed25519 public key must sign every request (Signature and
Timestamp headers, agents_protocol/platforms/signatures.py).
"""
import base64
import binascii

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import models
from django.utils import timezone


def ed25519_public_key(value):
    """The 32-byte key `value` spells in base64url (or base64), else a ValidationError."""
    try:
        raw = base64.urlsafe_b64decode(value.strip().replace("+", "-").replace("/", "_") + "==")
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise ValidationError("Write the platform's Ed25519 public key: 32 bytes in base64url.")
    return raw


def validate_signing_key(value):
    if value:
        ed25519_public_key(value)


class Platform(models.Model):
    name = models.CharField(max_length=200, help_text="Who the platform is, e.g. the agent product's name.")
    contact_email = models.EmailField(blank=True)
    is_active = models.BooleanField(default=True, help_text="Off: every key of the platform is refused.")
    test_mode = models.BooleanField(
        default=False, help_text="Offered and allowed only payment handlers whose config has \"test_mode\": true.")
    requests_per_minute = models.PositiveIntegerField(default=300)
    max_open_checkouts = models.PositiveIntegerField(
        default=1000, help_text="Checkout sessions the platform may hold open at once (each buyer's is one).")
    signing_key = models.CharField(
        max_length=100, blank=True, validators=[validate_signing_key],
        help_text="The platform's Ed25519 public key (base64url). Set: every request must carry a valid "
                  "Signature and a Timestamp within the allowed clock skew.")
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Empty: never. Test-mode keys expire.")
    webhook_url = models.URLField(
        max_length=2000, blank=True, validators=[URLValidator(schemes=["https"])],
        help_text="Where the platform receives order events (ACP's order webhook). Empty: none are sent.")
    webhook_secret = models.CharField(
        max_length=200, blank=True,
        help_text="The secret the platform gave for its webhook: each event is signed with it (Merchant-Signature).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    def clean(self):
        if self.webhook_url and not self.webhook_secret:
            raise ValidationError({"webhook_secret": "Enter the secret the platform gave for its webhook."})

    @property
    def is_live(self):
        return self.is_active and (self.expires_at is None or self.expires_at > timezone.now())


class PlatformKey(models.Model):
    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="keys")
    prefix = models.CharField(max_length=20, help_text="The key's first characters, to tell keys apart.")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "platform API key"

    def __str__(self):
        return f"{self.prefix}…"
