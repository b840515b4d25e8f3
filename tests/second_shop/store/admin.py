from django.contrib import admin

from .models import Item, PendingOrder


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["sku", "title", "department", "unit_price_cents", "quantity_on_hand", "listed"]
    search_fields = ["sku", "title"]


@admin.register(PendingOrder)
class PendingOrderAdmin(admin.ModelAdmin):
    list_display = ["reference", "owner", "total_cents", "status", "expires_at"]
