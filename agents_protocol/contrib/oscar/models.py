"""Which Oscar basket each agent session fills, and what became of it.

Oscar's own models are named by app label ("basket.Basket", "order.Order"), so a shop that
forked those apps keeps its own classes.
"""
from django.db import models
from django.db.models import Q


class AgentBasket(models.Model):
    """An Oscar basket filled by one agent session.

    Open (no checkout link yet): the session's current basket, at most one per session.
    Handed off: `checkout` gave the agent a single-use link (only its hash is kept) and the app
    its `reference` (the app gives the agent an order_id for it, core/handoffs.py). The human who
    opens the link gets the basket's lines in their own Oscar basket (`checkout_basket`, followed
    through a login), and Oscar's order for that basket resolves the handoff (`order`).
    """

    session = models.ForeignKey("agents_protocol.AgentSession", on_delete=models.CASCADE, related_name="+")
    basket = models.OneToOneField("basket.Basket", on_delete=models.CASCADE, related_name="+")
    reference = models.CharField(max_length=40, unique=True, null=True, blank=True)
    link_token_hash = models.CharField(max_length=64, unique=True, null=True, blank=True)
    link_expires_at = models.DateTimeField(null=True, blank=True)
    link_opened_at = models.DateTimeField(null=True, blank=True)
    checkout_basket = models.ForeignKey(
        "basket.Basket", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    order = models.ForeignKey("order.Order", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["session"], condition=Q(reference=None), name="agents_protocol_oscar_one_open_basket",
            ),
        ]

    def __str__(self):
        return self.reference or f"open basket {self.basket_id}"
