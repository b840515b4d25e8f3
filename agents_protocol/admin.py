"""Admin for everything agents may do. Validation lives in the models' clean(), so every
form here refuses a change that would publish an invalid agents.json."""
from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import Q
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode

from agents_protocol.activity.page import AgentActivityAdmin
from agents_protocol.checkout.models import CheckoutLink, CheckoutSession, CommerceConfig, PaymentHandler
from agents_protocol.core.config import load_config
from agents_protocol.core.models import (
    OBJECT_IN_QUERY,
    AgentCall,
    AgentSession,
    AuditArtifact,
    AuditConfig,
    AuditEvent,
    Capability,
    CapabilityParam,
    Flow,
    FlowStep,
    McpConfig,
    RateLimitConfig,
    SessionConfig,
    SigningKey,
    SiteProfile,
    path_param_problem,
)
from agents_protocol.core.schema import plain_number
from agents_protocol.http.publishing import render_agents_json, render_agents_txt
from agents_protocol.platforms import admin as platforms_admin  # noqa: F401 (registers the platforms' admin)

PREVIEW_ORIGIN = "https://your-site.example"


class SingletonAdmin(admin.ModelAdmin):
    """One row, edited in place: the list view opens the row, nothing to add or delete."""

    def has_add_permission(self, request):
        # The row always exists (load() creates it), and asking would cost the admin index a query.
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        obj = self.model.load()
        return redirect(reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk]))


@admin.register(SiteProfile)
class SiteProfileAdmin(SingletonAdmin):
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    fieldsets = [
        (None, {"fields": ["name", "url", "description", "contact", "docs_url", "agent_notes"]}),
        ("Published documents (preview)", {"fields": ["agents_txt_preview", "agents_json_preview"]}),
    ]
    readonly_fields = ["agents_txt_preview", "agents_json_preview"]

    class Media:
        css = {"all": ["agents_protocol/admin.css"]}

    @admin.display(description="agents.txt")
    def agents_txt_preview(self, obj):
        return _preview(render_agents_txt(load_config(), PREVIEW_ORIGIN).body.decode())

    @admin.display(description="agents.json")
    def agents_json_preview(self, obj):
        return _preview(render_agents_json(load_config(), PREVIEW_ORIGIN).body.decode())


def _preview(text):
    return format_html('<pre class="agents-preview">{}</pre>', text)


admin.site.register(SessionConfig, SingletonAdmin)
admin.site.register(RateLimitConfig, SingletonAdmin)
admin.site.register(AuditConfig, SingletonAdmin)
admin.site.register(McpConfig, SingletonAdmin)
admin.site.register(CommerceConfig, SingletonAdmin)


@admin.register(PaymentHandler)
class PaymentHandlerAdmin(admin.ModelAdmin):
    list_display = ["handler_id", "name", "version", "position"]
    list_editable = ["position"]


@admin.register(CheckoutLink)
class CheckoutLinkAdmin(admin.ModelAdmin):
    list_display = ["type", "url", "title", "position"]
    list_editable = ["position"]


@admin.register(CheckoutSession)
class CheckoutSessionAdmin(admin.ModelAdmin):
    """Checkout sessions change only through their protocol's calls: staff read them."""

    list_display = ["public_id", "status", "currency", "order_id", "created_at", "updated_at"]
    list_filter = ["status"]
    search_fields = ["public_id", "order_id", "order_key"]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class OptionalJSONField(forms.JSONField):
    """Shows an unset value as an empty box rather than the word null."""

    def prepare_value(self, value):
        return "" if value is None else super().prepare_value(value)


class PlainNumberField(forms.FloatField):
    """A bound as the documents publish it: 1, not 1.0 (an integer parameter's bounds are whole)."""

    def prepare_value(self, value):
        return plain_number(super().prepare_value(value))


class CapabilityParamFormSet(forms.BaseInlineFormSet):
    def clean(self):
        """What CapabilityParam.clean cannot see for a capability not saved yet: its method and
        endpoint, as the form has them, against the parameters as the forms leave them."""
        super().clean()
        kept = [form.cleaned_data for form in self.forms
                if getattr(form, "cleaned_data", None) and not form.cleaned_data.get("DELETE")]
        problem = path_param_problem(self.instance.endpoint or "", {data["name"]: data["type"] for data in kept
                                                                    if data.get("name") and data.get("type")})
        if problem:
            raise forms.ValidationError(problem)
        if self.instance.method != "GET":
            return
        for form in self.forms:
            data = getattr(form, "cleaned_data", {})
            if data.get("type") == "object" and not data.get("DELETE"):
                form.add_error("type", OBJECT_IN_QUERY)


class CapabilityParamInline(admin.TabularInline):
    """Every rule of a parameter, the ones the published documents state and the API enforces."""

    model = CapabilityParam
    formset = CapabilityParamFormSet
    extra = 0
    formfield_overrides = {
        models.JSONField: {"form_class": OptionalJSONField, "widget": forms.TextInput(attrs={"size": 24})},
        models.FloatField: {"form_class": PlainNumberField, "widget": forms.NumberInput(attrs={"step": "any"})},
        models.PositiveIntegerField: {"widget": forms.NumberInput(attrs={"min": 0})},
    }
    fields = ["position", "name", "type", "required", "default", "enum", "items", "minimum", "maximum",
              "min_length", "max_length", "format", "description"]


@admin.register(Capability)
class CapabilityAdmin(admin.ModelAdmin):
    list_display = ["name", "method", "endpoint", "enabled", "requires_session", "human_handoff", "position"]
    list_filter = ["enabled", "requires_session", "method"]
    search_fields = ["name", "endpoint", "description"]
    inlines = [CapabilityParamInline]
    fields = ["name", "description", "endpoint", "method", "requires_session", "human_handoff", "enabled",
              "calls_per_hour", "position", "activity"]
    readonly_fields = ["activity"]

    def get_deleted_objects(self, objs, request):
        """Deleting every enabled capability is refused as deleting a protected object is:
        agents.json needs at least one (disabling the last one is refused the same way)."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        if not Capability.objects.filter(enabled=True).exclude(pk__in=[obj.pk for obj in objs]).exists():
            protected = [*protected, "The last enabled capability: agents.json needs at least one."]
        return deleted, counts, perms_needed, protected

    @admin.display(description="agent activity")
    def activity(self, obj):
        if obj.pk is None:
            return "-"
        url = reverse("admin:agents_protocol_agentcall_changelist")
        return format_html('<a href="{}?{}">Calls, refusals and latency of {} (last 30 days)</a>', url,
                           urlencode({"period": "30d", "capability": obj.name}), obj.name)


class FlowStepInline(admin.TabularInline):
    model = FlowStep
    extra = 0
    min_num = 1  # agents.json's flows need at least one step

    def get_formset(self, request, obj=None, **kwargs):
        return super().get_formset(request, obj, validate_min=True, **kwargs)  # admin checks min_num only if asked
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


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Every event of every trail, read-only and paged: a session's page links here for its own
    (a busy session holds thousands, too many to show on one page)."""

    list_display = ["seq", "session", "timestamp", "capability", "method", "path", "response_status", "policy_result"]
    list_display_links = None
    list_select_related = ["session"]
    # The (session, seq) constraint's index; "session" would order by the session's own ordering
    # (a join). No list_filter: each would read every event ever recorded for its choices.
    ordering = ["session_id", "seq"]
    show_full_result_count = False
    fields = ["session", "seq", "event_id", "timestamp", "capability", "method", "path", "params",
              "response_status", "policy_result", "hint", "prev_hash", "event_hash"]
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # a trail's events go with their session (agents_prune)


class EndReasonFilter(admin.SimpleListFilter):
    """The reasons a session ends, listed without a DISTINCT over every session ever made."""

    title = "end reason"
    parameter_name = "end_reason"
    REASONS = [("deleted", "deleted"), ("expired", "expired"), ("idle", "idle (its address needed room)"),
               ("rotated", "rotated (signing key)"), ("live", "still live")]

    def lookups(self, request, model_admin):
        return self.REASONS

    def queryset(self, request, queryset):
        # A session past its deadline is expired before `agents_audit seal-expired` seals it.
        now, unsealed = timezone.now(), Q(end_reason="")
        if self.value() == "live":
            return queryset.filter(unsealed, expires_at__gt=now)
        if self.value() == "expired":
            return queryset.filter(Q(end_reason="expired") | (unsealed & Q(expires_at__lte=now)))
        return queryset.filter(end_reason=self.value()) if self.value() else queryset


@admin.register(AgentSession)
class AgentSessionAdmin(admin.ModelAdmin):
    list_display = ["public_id", "agent_name", "client_address", "created_at", "expires_at", "ended_at", "end_reason"]
    list_filter = [EndReasonFilter, "audited"]
    ordering = ["-id"]  # newest first by the primary key: created_at has no index
    show_full_result_count = False  # no second COUNT over every session when searching
    search_fields = ["public_id", "agent_name", "client_address"]
    fields = ["public_id", "agent_name", "agent_version", "purpose", "client_address", "created_at",
              "expires_at", "ended_at", "end_reason", "audited", "event_count", "latest_events",
              "artifact_download"]
    readonly_fields = fields
    LATEST_EVENTS = 20

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # a session is its audit trail and its cart's owner: agents_prune removes old ones

    def get_urls(self):
        download = self.admin_site.admin_view(self.download_artifact)
        return [path("<int:pk>/artifact.json", download, name="agents_protocol_agentsession_artifact"),
                *super().get_urls()]

    @admin.display(description="latest events")
    def latest_events(self, obj):
        """The trail's last LATEST_EVENTS events, in order, and a link to every event of it."""
        events = reversed(obj.audit_events.order_by("-seq")[:self.LATEST_EVENTS])
        rows = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{} {}</td><td>{}</td><td>{}</td></tr>", (
            (e.seq, e.timestamp, e.capability, e.method, e.path, e.response_status, e.policy_result) for e in events))
        every = reverse("admin:agents_protocol_auditevent_changelist") + "?" + urlencode({"session__id__exact": obj.pk})
        return format_html(
            '<table><thead><tr><th>seq</th><th>timestamp</th><th>capability</th><th>call</th><th>status</th>'
            '<th>policy</th></tr></thead><tbody>{}</tbody></table><a href="{}">All {} events</a>',
            rows, every, obj.event_count)

    @admin.display(description="audit artifact")
    def artifact_download(self, obj):
        if not hasattr(obj, "audit_artifact"):
            return "Not sealed yet" if obj.audited else "Audit was off for this session"
        url = reverse("admin:agents_protocol_agentsession_artifact", args=[obj.pk])
        return format_html('<a href="{}" download>Download the signed artifact (JSON)</a>', url)

    def download_artifact(self, request, pk):
        if not self.has_view_permission(request):
            raise PermissionDenied  # admin_view checks only is_staff
        artifact = get_object_or_404(AuditArtifact, session_id=pk)
        response = JsonResponse(artifact.body, json_dumps_params={"indent": 2, "ensure_ascii": False})
        response["Content-Disposition"] = f'attachment; filename="audit-{artifact.session.public_id}.json"'
        return response


admin.site.register(AgentCall, AgentActivityAdmin)


@admin.register(SigningKey)
class SigningKeyAdmin(admin.ModelAdmin):
    """Public halves only: the private key never enters the database."""

    list_display = ["key_id", "public_key", "created_at", "retired_at"]
    readonly_fields = ["key_id", "public_key", "created_at", "retired_at"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
