"""Admin of platforms: keys issued on the platform's page (shown once on the answer page, never
stored, never put in a message cookie), revoked from the key list; the key's hash and times
read only."""
from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from agents_protocol.platforms import keys
from agents_protocol.platforms.models import Platform, PlatformKey


class PlatformKeyInline(admin.TabularInline):
    model = PlatformKey
    fields = readonly_fields = ["prefix", "created_at", "last_used_at", "revoked_at"]
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


def https_urls(db_field, **kwargs):
    """Form fields of the model's own, its URLs read as https when written without a scheme."""
    if isinstance(db_field, models.URLField):
        kwargs["assume_scheme"] = "https"
    return db_field.formfield(**kwargs)


class PlatformForm(forms.ModelForm):
    """The webhook secret is written, never shown again: the page holds no secret to read over a
    shoulder or from a cached page. Left empty, the secret stays as it was."""

    webhook_secret = forms.CharField(
        required=False, strip=True, max_length=200, widget=forms.PasswordInput(render_value=False),
        help_text="The secret the platform gave for its webhook (Merchant-Signature). Never shown again; "
                  "leave empty to keep the one stored.")

    class Meta:
        model = Platform
        fields = "__all__"
        formfield_callback = https_urls

    def clean_webhook_secret(self):
        return self.cleaned_data["webhook_secret"] or self.instance.webhook_secret


@admin.register(Platform)
class PlatformAdmin(admin.ModelAdmin):
    form = PlatformForm
    list_display = ["name", "is_active", "test_mode", "requests_per_minute", "max_open_checkouts", "expires_at"]
    list_filter = ["is_active", "test_mode"]
    search_fields = ["name", "contact_email"]
    readonly_fields = ["issue_key_button"]
    inlines = [PlatformKeyInline]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def get_urls(self):
        issue = self.admin_site.admin_view(self.issue_key)
        return [path("<int:pk>/issue-key/", issue, name="agents_protocol_platform_issue_key"), *super().get_urls()]

    @admin.display(description="API keys")
    def issue_key_button(self, obj):
        if obj.pk is None:
            return "Save the platform first."
        url = reverse("admin:agents_protocol_platform_issue_key", args=[obj.pk])
        return format_html('<button type="submit" formaction="{}" formmethod="post">Issue a new API key</button>', url)

    def issue_key(self, request, pk):
        platform = get_object_or_404(Platform, pk=pk)
        if request.method != "POST":
            return redirect("admin:agents_protocol_platform_change", pk)
        if not self.has_change_permission(request, platform):
            raise PermissionDenied
        raw_key = keys.issue_key(platform)
        context = {**self.admin_site.each_context(request), "platform": platform, "raw_key": raw_key,
                   "back_url": reverse("admin:agents_protocol_platform_change", args=[pk]),
                   "title": "New API key"}
        response = TemplateResponse(request, "admin/agents_protocol/platform/issued_key.html", context)
        response["Cache-Control"] = "no-store"
        return response


@admin.register(PlatformKey)
class PlatformKeyAdmin(admin.ModelAdmin):
    list_display = ["prefix", "platform", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["platform"]
    fields = readonly_fields = ["platform", "prefix", "created_at", "last_used_at", "revoked_at"]
    actions = ["revoke_keys"]

    def has_add_permission(self, request):
        return False  # a key is issued on its platform's page

    @admin.action(description="Revoke the selected keys", permissions=["change"])
    def revoke_keys(self, request, queryset):
        self.message_user(request, f"{keys.revoke(queryset)} key(s) revoked.", messages.SUCCESS)
