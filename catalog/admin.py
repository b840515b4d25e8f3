from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import Exists, F, OuterRef
from django.db.models.functions import Greatest

from .models import Category, Product


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "position"]
    list_editable = ["position"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


class StockAsSeen:
    """Stock fields that remember the number the page showed (a hidden initial), so that saving a
    page opened before a sale does not put the sold stock back: see save_keeping_sales."""

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "stock":
            kwargs["show_hidden_initial"] = True
        return super().formfield_for_dbfield(db_field, request, **kwargs)


def save_keeping_sales(product, form):
    """Save `product` from an admin form. Stock moves by what staff changed, from the number the
    page showed to the one they typed, and otherwise is left as it is now: checkout takes stock
    while staff have a page open, and writing back the number they saw would undo those sales."""
    seen = stock_seen(form) if product.pk is not None else None
    if seen is None:  # a new product, or a form posted without what its page showed: stock as typed
        product.save()
        return
    typed = product.stock
    product.save(update_fields=[f.name for f in Product._meta.concrete_fields if not f.primary_key and f.name != "stock"])
    if typed != seen:
        Product.objects.filter(pk=product.pk).update(stock=Greatest(F("stock") + (typed - seen), 0))
    product.refresh_from_db(fields=["stock"])


def stock_seen(form):
    """The stock the page showed when it was opened (its hidden initial), or None without one."""
    if "stock" not in form.fields:
        return None
    try:
        return form.fields["stock"].to_python(form.data.get(form.add_initial_prefix("stock")))
    except ValidationError:
        return None


class VariantForm(forms.ModelForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:  # agents hold on to public ids (carts, audit trails)
            self.fields["public_id"].disabled = True


class VariantInline(StockAsSeen, admin.TabularInline):
    """A product's variants (sizes, glazes), each sold on its own id; they take the parent's category and currency."""

    model = Product
    form = VariantForm
    fk_name = "variant_of"
    fields = ["public_id", "name", "slug", "variant_attributes", "price", "stock", "is_active"]
    extra = 0
    verbose_name = "variant"
    verbose_name_plural = "variants (each sold on its own id; agents add a variant's id to the cart)"


class ProductRowForm(forms.ModelForm):
    """A row of the product list. A product sold only as its variants has no stock of its own to
    sell (agents and shoppers buy a variant), so its stock is shown but not edited there."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if getattr(self.instance, "sold_as_variants", False):
            self.fields["stock"].disabled = True
            self.fields["stock"].help_text = "Sold as its variants: edit their stock on this product's page."


@admin.register(Product)
class ProductAdmin(StockAsSeen, admin.ModelAdmin):
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

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            sold_as_variants=Exists(Product.objects.filter(variant_of=OuterRef("pk"))))

    def get_changelist_form(self, request, **kwargs):
        return super().get_changelist_form(request, form=ProductRowForm, **kwargs)

    def get_inlines(self, request, obj):
        return [] if obj is not None and obj.variant_of_id is not None else self.inlines  # no variants of a variant

    def save_model(self, request, obj, form, change):
        save_keeping_sales(obj, form)

    def save_formset(self, request, form, formset, change):
        if formset.model is not Product:
            super().save_formset(request, form, formset, change)
            return
        formset.save(commit=False)  # gives new variants their parent, lists the deleted ones
        for variant in formset.deleted_objects:
            variant.delete()
        for variant_form in formset.forms:
            if variant_form.has_changed() and variant_form not in formset.deleted_forms:
                save_keeping_sales(variant_form.instance, variant_form)
