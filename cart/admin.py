from django.contrib import admin

from .models import Cart, CartLine, CustomerAddress, DiscountCode, Order, OrderLine, ShippingPromotion, ShippingRate


class ViewOnly:
    """Carts change only through the cart services (one open cart per session, frozen at
    checkout, lines of products for sale): staff read them."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class CartLineInline(ViewOnly, admin.TabularInline):
    model = CartLine
    extra = 0
    raw_id_fields = ["product"]
    readonly_fields = ["added"]


@admin.register(Cart)
class CartAdmin(ViewOnly, admin.ModelAdmin):
    list_display = ["id", "agent_session", "status", "currency", "created", "updated"]
    list_filter = ["status"]
    search_fields = ["agent_session__public_id"]
    raw_id_fields = ["agent_session"]
    readonly_fields = ["created", "updated"]
    inlines = [CartLineInline]


class OrderLineInline(admin.TabularInline):
    model = OrderLine
    extra = 0
    can_delete = False
    fields = ["product_public_id", "product_name", "unit_price", "quantity", "line_total"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


class CurrentStatusFilter(admin.SimpleListFilter):
    """The status the list shows (an open order past its deadline is expired), not the stored one."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return Order.Status.choices

    def queryset(self, request, queryset):
        return queryset.in_current_status(self.value()) if self.value() in Order.Status.values else queryset


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):
    """Orders as the human left them. Status, money and lines are read-only: they change
    only through checkout (stock and payment rules); staff may correct contact details."""

    list_display = ["number", "status_now", "subtotal", "currency", "customer_name", "customer_email",
                    "created", "confirmed_at"]
    list_filter = [CurrentStatusFilter, "created"]
    search_fields = ["number", "customer_email", "customer_name"]
    fieldsets = [
        (None, {"fields": ["number", "status_now", "subtotal", "currency", "payment_reference"]}),
        ("Customer", {"fields": ["customer_name", "customer_email", "shipping_address"]}),
        ("Handoff", {"fields": ["agent_session", "cart", "created", "expires_at", "confirmed_at", "updated"]}),
    ]
    readonly_fields = [
        "number", "status_now", "subtotal", "currency", "payment_reference",
        "agent_session", "cart", "created", "expires_at", "confirmed_at", "updated",
    ]
    inlines = [OrderLineInline]

    @admin.display(description="status", ordering="status")
    def status_now(self, order):
        return order.current_status.label

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # an order is the human's record and its link; shop_prune removes old ones


@admin.register(ShippingRate)
class ShippingRateAdmin(admin.ModelAdmin):
    list_display = ["rate_id", "title", "country_code", "service_level", "price"]
    list_filter = ["service_level", "country_code"]


@admin.register(ShippingPromotion)
class ShippingPromotionAdmin(admin.ModelAdmin):
    list_display = ["name", "min_subtotal", "is_active"]


@admin.register(DiscountCode)
class DiscountCodeAdmin(admin.ModelAdmin):
    list_display = ["code", "kind", "value", "description", "is_active"]
    list_filter = ["kind", "is_active"]
    search_fields = ["code"]


@admin.register(CustomerAddress)
class CustomerAddressAdmin(admin.ModelAdmin):
    list_display = ["public_id", "email", "street_address", "locality", "country"]
    search_fields = ["email", "public_id"]
