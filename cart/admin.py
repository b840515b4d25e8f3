from django.contrib import admin

from .models import Cart, CartLine, Order, OrderLine


class CartLineInline(admin.TabularInline):
    model = CartLine
    extra = 0
    raw_id_fields = ["product"]
    readonly_fields = ["added"]


@admin.register(Cart)
class CartAdmin(admin.ModelAdmin):
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


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):
    list_display = ["number", "status", "subtotal", "currency", "customer_email", "created", "expires_at"]
    list_filter = ["status", "created"]
    search_fields = ["number", "customer_email", "customer_name"]
    exclude = ["handoff_token_hash"]
    readonly_fields = [
        "number", "cart", "agent_session", "currency", "subtotal", "created", "expires_at", "confirmed_at"
    ]
    inlines = [OrderLineInline]
