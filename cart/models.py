from decimal import Decimal

from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Cart(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        FROZEN = "frozen", "Frozen for checkout"
        SUBMITTED = "submitted", "Submitted"

    agent_session = models.ForeignKey(
        "agents_protocol.AgentSession", on_delete=models.CASCADE, related_name="carts"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    currency = models.CharField(max_length=3, default="USD")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(
                fields=["agent_session"],
                condition=Q(status="open"),
                name="cart_one_open_per_session",
            )
        ]

    def __str__(self):
        return f"Cart {self.pk} ({self.status})"


class CartLine(models.Model):
    cart = models.ForeignKey(Cart, on_delete=models.CASCADE, related_name="lines")
    product = models.ForeignKey("catalog.Product", on_delete=models.PROTECT, related_name="+")
    quantity = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    added = models.DateTimeField(auto_now_add=True)
    # The price when the line was created: checkout tells the agent when it changed since.
    unit_price_added = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)

    class Meta:
        ordering = ["added", "id"]
        constraints = [
            models.UniqueConstraint(fields=["cart", "product"], name="cartline_unique_product"),
            models.CheckConstraint(condition=Q(quantity__gte=1), name="cartline_quantity_positive"),
        ]

    def __str__(self):
        return f"{self.quantity} × {self.product}"


class OrderQuerySet(models.QuerySet):
    def in_current_status(self, status):
        """Orders whose current_status is `status`: an open order past its deadline counts as
        expired, whether or not it was marked so yet."""
        now, still_open = timezone.now(), Q(status__in=Order.OPEN_STATUSES)
        if status == Order.Status.EXPIRED:
            return self.filter(Q(status=status) | (still_open & Q(expires_at__lte=now)))
        if status in Order.OPEN_STATUSES:
            return self.filter(status=status, expires_at__gt=now)
        return self.filter(status=status)


class Order(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending (waiting for the human)"
        CONFIRMED = "confirmed", "Confirmed"
        DECLINED = "declined", "Payment declined"
        EXPIRED = "expired", "Expired"
        CANCELLED = "cancelled", "Cancelled"

    number = models.CharField(max_length=20, unique=True)
    cart = models.OneToOneField(Cart, on_delete=models.PROTECT, related_name="order")
    agent_session = models.ForeignKey(
        "agents_protocol.AgentSession", on_delete=models.SET_NULL, null=True, related_name="orders"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    handoff_token_hash = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    currency = models.CharField(max_length=3)
    subtotal = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("0.00"))
    customer_name = models.CharField(max_length=200, blank=True)
    customer_email = models.EmailField(max_length=320, blank=True)
    shipping_address = models.TextField(blank=True)
    payment_reference = models.CharField(max_length=100, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)

    objects = OrderQuerySet.as_manager()

    # The human can still confirm (or retry a declined payment) until expires_at.
    OPEN_STATUSES = (Status.PENDING, Status.DECLINED)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return self.number

    @property
    def is_expired(self):
        return self.expires_at <= timezone.now()

    @property
    def current_status(self):
        """The status, reading an open order past its deadline as expired (even if not yet marked)."""
        if self.status in self.OPEN_STATUSES and self.is_expired:
            return self.Status.EXPIRED
        return self.Status(self.status)

    @property
    def is_open(self):
        return self.current_status in self.OPEN_STATUSES


class OrderLine(models.Model):
    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="lines")
    product = models.ForeignKey("catalog.Product", on_delete=models.PROTECT, related_name="+")
    product_public_id = models.CharField(max_length=63)
    product_name = models.CharField(max_length=200)
    unit_price = models.DecimalField(max_digits=10, decimal_places=2)
    quantity = models.PositiveIntegerField(validators=[MinValueValidator(1)])

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"{self.quantity} × {self.product_name}"

    @property
    def line_total(self):
        return self.unit_price * self.quantity


class ShippingRate(models.Model):
    """What shipping costs to a country (or to any country the shop has no rate of its own for:
    DEFAULT_COUNTRY), at one service level; an agent's checkout offers the cheapest per level."""

    DEFAULT_COUNTRY = "default"

    rate_id = models.CharField(max_length=63, unique=True, help_text="The option's id agents choose.")
    country_code = models.CharField(max_length=7, help_text='ISO 3166-1 alpha-2 code, or "default".')
    service_level = models.CharField(max_length=50, help_text='e.g. "standard", "express".')
    title = models.CharField(max_length=200)
    price = models.DecimalField(max_digits=10, decimal_places=2, validators=[MinValueValidator(Decimal("0.00"))])

    class Meta:
        ordering = ["price", "rate_id"]

    def __str__(self):
        return self.title


class ShippingPromotion(models.Model):
    """Free standard shipping from a subtotal, or for carts holding one of some items."""

    name = models.CharField(max_length=200)
    min_subtotal = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    eligible_item_ids = models.JSONField(default=list, blank=True, help_text='Product ids, e.g. ["bouquet_roses"].')
    is_active = models.BooleanField(default=True)

    def __str__(self):
        return self.name


class DiscountCode(models.Model):
    class Kind(models.TextChoices):
        PERCENTAGE = "percentage", "Percentage off"
        FIXED_AMOUNT = "fixed_amount", "Fixed amount off"

    code = models.CharField(max_length=50, unique=True)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    value = models.DecimalField(max_digits=10, decimal_places=2, validators=[MinValueValidator(Decimal("0.00"))],
                                help_text="Percent (10 = 10%) or an amount in the shop's currency.")
    description = models.CharField(max_length=200)
    is_active = models.BooleanField(default=True)

    def __str__(self):
        return self.code


class CustomerAddress(models.Model):
    """An address a buyer shipped to, kept by email so the next checkout offers it."""

    public_id = models.CharField(max_length=63, unique=True)
    email = models.EmailField(max_length=320, db_index=True)
    street_address = models.CharField(max_length=200, blank=True)
    locality = models.CharField(max_length=100, blank=True)
    region = models.CharField(max_length=100, blank=True)
    postal_code = models.CharField(max_length=20, blank=True)
    country = models.CharField(max_length=2)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "customer addresses"

    def __str__(self):
        return f"{self.email}: {self.street_address}, {self.locality} {self.country}"
