"""The shop's own data, shaped before agents came along: nothing here follows agents_protocol."""
from django.db import models


class Item(models.Model):
    sku = models.CharField(max_length=40, unique=True)
    title = models.CharField(max_length=200)
    blurb = models.TextField(blank=True)
    department = models.SlugField(max_length=50)
    unit_price_cents = models.PositiveIntegerField()
    quantity_on_hand = models.PositiveIntegerField(default=0)
    listed = models.BooleanField(default=True)
    added_on = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["title"]

    def __str__(self):
        return f"{self.sku} {self.title}"


class Basket(models.Model):
    """One basket per owner: a browser session key, or "agent:<session id>" for an agent."""

    owner = models.CharField(max_length=100, unique=True)

    def __str__(self):
        return self.owner


class BasketLine(models.Model):
    basket = models.ForeignKey(Basket, on_delete=models.CASCADE, related_name="lines")
    item = models.ForeignKey(Item, on_delete=models.PROTECT)
    quantity = models.PositiveIntegerField()

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["basket", "item"], name="store_one_line_per_item")]


class PendingOrder(models.Model):
    """A basket frozen at checkout, waiting for a human to review it at /review/<token>/."""

    reference = models.CharField(max_length=20, unique=True)
    token = models.CharField(max_length=64, unique=True)
    owner = models.CharField(max_length=100)
    lines = models.JSONField()  # [{"sku", "title", "quantity", "unit_price_cents"}]
    total_cents = models.PositiveIntegerField()
    status = models.CharField(max_length=20, default="pending")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return self.reference


class ContactRequest(models.Model):
    name = models.CharField(max_length=200)
    email = models.EmailField()
    message = models.TextField()
    received_at = models.DateTimeField(auto_now_add=True)
