from decimal import Decimal
from functools import lru_cache

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator, RegexValidator
from django.db import models, transaction
from django.urls import get_script_prefix, reverse

public_id_validator = RegexValidator(
    r"^[a-z0-9][a-z0-9-]{1,62}$",
    "Use 2-63 lowercase letters, digits and hyphens, starting with a letter or digit.",
)

LOW_STOCK_THRESHOLD = 5
SLUG_PLACEHOLDER = "slug-placeholder"


def product_path(slug):
    """The product page's path, reversed once per script prefix: search answers carry 20 of them."""
    return _product_path_template(get_script_prefix()).replace(SLUG_PLACEHOLDER, slug)


@lru_cache(maxsize=16)
def _product_path_template(script_prefix):
    return reverse("catalog:product_detail", kwargs={"slug": SLUG_PLACEHOLDER})


class Category(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "name"]
        verbose_name_plural = "categories"

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("catalog:product_list") + f"?category={self.slug}"


class ProductQuerySet(models.QuerySet):
    def active(self):
        """For sale: active, and a variant only while its parent is active too.

        The parent is asked in a NOT EXISTS rather than joined: an UPDATE of a join becomes
        `WHERE id IN (subquery)`, whose conditions (the stock checkout takes) PostgreSQL does not
        check again on the row it waited to lock."""
        inactive_parent = Product.objects.filter(pk=models.OuterRef("variant_of_id"), is_active=False)
        return self.filter(is_active=True).exclude(models.Exists(inactive_parent))


class Product(models.Model):
    public_id = models.CharField(
        max_length=63,
        unique=True,
        validators=[public_id_validator],
        help_text="Stable id agents use (detail/:id, cart item_id). Never reuse one.",
    )
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    price = models.DecimalField(
        max_digits=10, decimal_places=2, validators=[MinValueValidator(Decimal("0.00"))]
    )
    currency = models.CharField(max_length=3, default="USD")
    stock = models.PositiveIntegerField(default=0)
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="products")
    materials = models.JSONField(default=list, blank=True, help_text='A list, e.g. ["stoneware"].')
    tags = models.JSONField(default=list, blank=True, help_text='A list, e.g. ["gift", "speckled"].')
    image = models.ImageField(upload_to="products/", blank=True)
    is_active = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True)
    # A variant (a size, a glaze) is a product of its own, sold on its own id, price and stock, and
    # listed only on its parent's page and in the parent's detail (the way django-oscar's child
    # products work). Both columns are nullable, so adding them left the search index's triggers alone.
    variant_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="variants",
        help_text="The product this is a variant of. A product with variants is sold only as one of them.",
    )
    variant_attributes = models.JSONField(
        null=True, blank=True, help_text='What sets this variant apart, e.g. {"size": "large"}.'
    )

    objects = ProductQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        indexes = [models.Index(fields=["is_active", "category"]), models.Index(fields=["created"])]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return product_path(self.slug)

    def clean(self):
        # A cart holds one currency, the shop's (cart/services.py): an item in another could be
        # listed but never bought, and sorting by price across currencies means nothing.
        if self.currency != settings.SHOP_CURRENCY:
            raise ValidationError({"currency": f"The shop sells in {settings.SHOP_CURRENCY} only."})
        attributes = self.variant_attributes
        if attributes and not (isinstance(attributes, dict)
                               and all(isinstance(v, str) for v in attributes.values())):
            # Published as an object of strings (agents_protocol's detail schema): {"size": "large"}.
            raise ValidationError({"variant_attributes": 'Write the attributes as names and text, such as '
                                                         '{"size": "large", "capacity": "350 ml"}.'})
        if self.variant_of_id is not None and self.variant_of.variant_of_id is not None:
            raise ValidationError({"variant_of": "A variant has no variants of its own: add this one to "
                                                f"{self.variant_of.variant_of.name}."})

    def save(self, *args, **kwargs):
        if self.variant_of_id is not None:  # a variant is filed and priced like its parent
            self.category_id, self.currency = self.variant_of.category_id, self.variant_of.currency
        with transaction.atomic():
            super().save(*args, **kwargs)
            if self.variant_of_id is None:  # and follows it when the parent moves
                self.variants.exclude(category_id=self.category_id, currency=self.currency).update(
                    category_id=self.category_id, currency=self.currency)

    @property
    def variant_label(self):
        """The variant's attributes as shoppers read them: "large, celadon"."""
        return ", ".join(str(value) for value in (self.variant_attributes or {}).values())

    @property
    def in_stock(self):
        return self.stock > 0

    @property
    def is_low_stock(self):
        return 0 < self.stock <= LOW_STOCK_THRESHOLD

    @property
    def stock_status(self):
        if not self.in_stock:
            return "Out of stock"
        if self.is_low_stock:
            return f"Only {self.stock} left"
        return "In stock"
