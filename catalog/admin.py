from django.contrib import admin

from .models import Category, Product


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "position"]
    list_editable = ["position"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


class VariantInline(admin.TabularInline):
    """A product's variants (sizes, glazes), each sold on its own id; they take the parent's category and currency."""

    model = Product
    fk_name = "variant_of"
    fields = ["public_id", "name", "slug", "variant_attributes", "price", "stock", "is_active"]
    extra = 0
    verbose_name = "variant"
    verbose_name_plural = "variants (each sold on its own id; agents add a variant's id to the cart)"


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    list_display = ["name", "public_id", "category", "price", "currency", "stock", "is_active", "created"]
    list_editable = ["stock", "is_active"]
    list_filter = ["category", "is_active", "currency", ("variant_of", admin.EmptyFieldListFilter)]
    list_select_related = ["category"]
    search_fields = ["name", "public_id", "description"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["created"]
    date_hierarchy = "created"
    inlines = [VariantInline]
    exclude = ["variant_of", "variant_attributes"]  # edited in the parent's variant inline

    def get_readonly_fields(self, request, obj=None):
        # Agents hold on to public ids (carts, audit trails), so they are fixed once saved.
        if obj is not None:
            return [*self.readonly_fields, "public_id"]
        return self.readonly_fields
