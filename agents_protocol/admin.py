"""Admin for everything agents may do. Validation lives in the models' clean(), so every
form here refuses a change that would publish an invalid agents.json."""
from django import forms
from django.contrib import admin
from django.db import models
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.html import format_html

from .config import load_config
from .models import (
    AgentSession,
    AuditConfig,
    Capability,
    CapabilityParam,
    Flow,
    FlowStep,
    RateLimitConfig,
    SessionConfig,
    SiteProfile,
)
from .publishing import render_agents_json, render_agents_txt

PREVIEW_ORIGIN = "https://your-site.example"


class SingletonAdmin(admin.ModelAdmin):
    """One row, edited in place: the list view opens the row, nothing to add or delete."""

    def has_add_permission(self, request):
        return not self.model.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        obj = self.model.load()
        return redirect(reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk]))


@admin.register(SiteProfile)
class SiteProfileAdmin(SingletonAdmin):
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    fieldsets = [
        (None, {"fields": ["name", "url", "description", "contact", "docs_url"]}),
        ("Published documents (preview)", {"fields": ["agents_txt_preview", "agents_json_preview"]}),
    ]
    readonly_fields = ["agents_txt_preview", "agents_json_preview"]

    @admin.display(description="agents.txt")
    def agents_txt_preview(self, obj):
        return _preview(render_agents_txt(load_config(), PREVIEW_ORIGIN).body.decode())

    @admin.display(description="agents.json")
    def agents_json_preview(self, obj):
        return _preview(render_agents_json(load_config(), PREVIEW_ORIGIN).body.decode())


def _preview(text):
    return format_html('<pre class="agents-preview" style="white-space: pre-wrap; margin: 0">{}</pre>', text)


admin.site.register(SessionConfig, SingletonAdmin)
admin.site.register(RateLimitConfig, SingletonAdmin)
admin.site.register(AuditConfig, SingletonAdmin)


class OptionalJSONField(forms.JSONField):
    """Shows an unset value as an empty box rather than the word null."""

    def prepare_value(self, value):
        return "" if value is None else super().prepare_value(value)


class CapabilityParamInline(admin.TabularInline):
    model = CapabilityParam
    extra = 0
    formfield_overrides = {
        models.JSONField: {"form_class": OptionalJSONField, "widget": forms.TextInput(attrs={"size": 24})}
    }
    fields = ["position", "name", "type", "required", "default", "enum", "items", "description"]


@admin.register(Capability)
class CapabilityAdmin(admin.ModelAdmin):
    list_display = ["name", "method", "endpoint", "enabled", "requires_session", "human_handoff", "position"]
    list_filter = ["enabled", "requires_session", "method"]
    search_fields = ["name", "endpoint", "description"]
    inlines = [CapabilityParamInline]
    fields = ["name", "description", "endpoint", "method", "requires_session", "human_handoff", "enabled", "position"]


class FlowStepInline(admin.TabularInline):
    model = FlowStep
    extra = 0
    fields = ["position", "capability"]


@admin.register(Flow)
class FlowAdmin(admin.ModelAdmin):
    list_display = ["name", "description", "steps_summary", "position"]
    inlines = [FlowStepInline]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("steps__capability")

    @admin.display(description="steps")
    def steps_summary(self, obj):
        return " → ".join(step.capability.name for step in obj.steps.all())


@admin.register(AgentSession)
class AgentSessionAdmin(admin.ModelAdmin):
    list_display = ["public_id", "agent_name", "client_address", "created_at", "expires_at", "ended_at"]
    list_filter = ["end_reason"]
    search_fields = ["public_id", "agent_name", "client_address"]
    exclude = ["token_hash"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
