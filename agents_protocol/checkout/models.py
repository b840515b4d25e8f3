"""The one checkout session of the commerce protocols (UCP, ACP), and what configures them.

A checkout session is bound to an agent session made with it: its calls get that session's
limits, signed audit trail and inspector. Its lines are the agent session's cart, priced by the
shop; amounts are Decimals in the cart's currency (each wire writes them its own way). States
are the app's own: each transport maps them to its protocol's words.
"""
from django.core.exceptions import ValidationError
from django.db import models

from agents_protocol.core.models import AgentSession, SingletonModel
from agents_protocol.core.provider import is_absolute_http_url


def is_url_or_path(value):
    """An absolute http(s) URL, or a path of this site (the profile makes it absolute)."""
    return isinstance(value, str) and (is_absolute_http_url(value) or (value.startswith("/") and not value.startswith("//")))


def url_or_path(value):
    if not is_url_or_path(value):
        raise ValidationError("Write an absolute http(s) URL or a path of this site starting with /.")


ACP_VERSIONS = ("2026-04-17",)  # the Agentic Commerce Protocol versions transports/acp.py serves
ACP_INTERVENTION_TYPES = ("3ds",)


def default_acp_versions():
    return list(ACP_VERSIONS)


class CommerceConfig(SingletonModel):
    """What admin turns on: the Universal Commerce Protocol's profile and checkout sessions."""

    ucp_enabled = models.BooleanField(
        default=False, verbose_name="UCP enabled",
        help_text="Publish /.well-known/ucp and serve UCP checkout sessions (/checkout-sessions, /orders).")

    acp_enabled = models.BooleanField(
        default=False, verbose_name="ACP enabled",
        help_text="Publish /.well-known/acp.json and serve ACP checkout sessions (/checkout_sessions) to "
                  "platforms with an API key.")
    acp_versions = models.JSONField(
        default=default_acp_versions, blank=True, verbose_name="ACP versions",
        help_text=f"The API-Version values accepted, oldest first; served: {', '.join(ACP_VERSIONS)}.")
    acp_intervention_types = models.JSONField(
        default=list, blank=True, verbose_name="ACP intervention types",
        help_text='Interventions the shop asks of buyers, published in acp.json: [] or ["3ds"].')

    class Meta:
        verbose_name = "commerce protocols"
        verbose_name_plural = "commerce protocols"

    def __str__(self):
        return "Commerce protocols"

    def clean(self):
        if not (isinstance(self.acp_versions, list) and self.acp_versions
                and all(version in ACP_VERSIONS for version in self.acp_versions)):
            raise ValidationError({"acp_versions": f"Write a non-empty list of {', '.join(ACP_VERSIONS)}."})
        if not (isinstance(self.acp_intervention_types, list)
                and set(self.acp_intervention_types) <= set(ACP_INTERVENTION_TYPES)):
            raise ValidationError({"acp_intervention_types": 'Write [] or ["3ds"].'})


class PaymentHandler(models.Model):
    """A payment handler the shop accepts, published in its profile; the provider's pay() receives
    the instruments platforms send for it."""

    handler_id = models.CharField(max_length=100, unique=True, help_text='The id instruments name, e.g. "google_pay".')
    name = models.CharField(max_length=200, help_text='Reverse-domain name, e.g. "com.google.pay".')
    version = models.CharField(max_length=10, default="2026-01-11")
    spec = models.CharField(max_length=500, validators=[url_or_path],
                            help_text="The handler's specification: a URL, or a path of this site (/…).")
    config_schema = models.CharField(max_length=500, validators=[url_or_path], help_text="A URL or a path (/…).")
    instrument_schemas = models.JSONField(default=list, blank=True, help_text="A list of URLs or paths (/…).")
    config = models.JSONField(default=dict, blank=True, help_text="The handler's configuration object.")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "handler_id"]

    def __str__(self):
        return self.handler_id

    def clean(self):
        if not isinstance(self.instrument_schemas, list) or not all(is_url_or_path(u) for u in self.instrument_schemas):
            raise ValidationError({"instrument_schemas": 'Write a list of URLs, e.g. ["https://…/instrument.json"].'})
        if not isinstance(self.config, dict):
            raise ValidationError({"config": "Write a JSON object."})


class CheckoutLink(models.Model):
    """A page of the shop every checkout links for the buyer (its terms, privacy policy …), which
    platforms show beside the checkout."""

    type = models.CharField(max_length=50, help_text='"privacy_policy", "terms_of_service", "refund_policy", '
                                                     '"shipping_policy", "faq", or a type of the shop\'s own.')
    url = models.CharField(max_length=500, validators=[url_or_path], help_text="A URL, or a path of this site (/…).")
    title = models.CharField(max_length=200, blank=True, help_text="Shown instead of a name made from the type.")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "pk"]

    def __str__(self):
        return self.type


class CheckoutSession(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open (details missing)"
        READY = "ready", "Ready to complete"
        ESCALATED = "escalated", "Handed to the human"
        CHALLENGED = "challenged", "Awaiting the buyer's authentication (3-D Secure)"
        COMPLETING = "completing", "Completing"
        COMPLETED = "completed", "Completed"
        CANCELED = "canceled", "Canceled"

    FINAL_STATUSES = (Status.COMPLETED, Status.CANCELED)

    public_id = models.CharField(max_length=40, unique=True)
    agent_session = models.OneToOneField(AgentSession, on_delete=models.CASCADE, related_name="checkout")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    currency = models.CharField(max_length=3)
    # The cart's lines as the shop priced them: [{"item_id", "title", "unit_price" (text), "quantity"}].
    lines = models.JSONField(default=list)
    buyer = models.JSONField(null=True, blank=True)
    # Shipping: addresses ({"id", …postal fields}), the chosen one, the shop's options for it
    # ({"id", "title", "amount" (text)}) and the chosen option.
    destinations = models.JSONField(null=True, blank=True)
    selected_destination_id = models.CharField(max_length=200, blank=True)
    shipping_options = models.JSONField(default=list, blank=True)
    selected_option_id = models.CharField(max_length=200, blank=True)
    fulfillment_requested = models.BooleanField(default=False)
    discount_codes = models.JSONField(default=list, blank=True)
    applied_discounts = models.JSONField(default=list, blank=True)  # [{"code", "title", "amount" (text)}]
    continue_url = models.URLField(max_length=2000, blank=True, help_text="The human's checkout page.")
    order_id = models.CharField(max_length=200, blank=True, db_index=True, help_text="The order the agent was given.")
    payment_reference = models.CharField(max_length=200, blank=True)
    # The completed order's id for the platform: unguessable, as it is all that reads the order.
    order_key = models.CharField(max_length=40, unique=True, null=True, blank=True)
    # What happened to the order since, oldest first: fulfillment events ({"id", "type",
    # "occurred_at", …}) and adjustments (refunds, returns: {"id", "type", "status", …}).
    fulfillment_events = models.JSONField(default=list, blank=True)
    adjustments = models.JSONField(default=list, blank=True)
    platform_profile_url = models.URLField(max_length=2000, blank=True)
    # The platform (a principal with an API key: ACP's) the checkout belongs to; None for UCP's.
    platform = models.ForeignKey("agents_protocol.Platform", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="checkouts")
    # What the payment handler asked the buyer to authenticate with (3-D Secure), while CHALLENGED.
    payment_challenge = models.JSONField(null=True, blank=True)
    # The interventions (3-D Secure …) the platform said it can handle when it opened the checkout.
    platform_interventions = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return self.public_id

    @property
    def is_final(self):
        return self.status in self.FINAL_STATUSES
