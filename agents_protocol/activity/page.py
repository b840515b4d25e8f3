"""The "Agent activity" page of admin: AgentActivityAdmin serves it as the changelist of
AgentCall, for users with the permission agents_protocol.view_agent_activity, with a CSV of
each of its tables."""
import csv
import re
from dataclasses import dataclass
from datetime import timedelta

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path

from agents_protocol.activity import recorder, report
from agents_protocol.activity.charts import charts_of, round_ms
from agents_protocol.core.conf import app_settings
from agents_protocol.core.config import current_config

PERIODS = {"today": 1, "7d": 7, "30d": 30}
LONGEST_RANGE_DAYS = 366
# Agents name themselves: whatever looks like an email address or a token is not shown.
EMAIL = re.compile(r"[^\s@]+@[^\s@]+")
LONG_RUN = re.compile(r"[A-Za-z0-9_-]{32,}")
HEX = re.compile(r"[0-9a-fA-F]{32,}")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def shown(text):
    return LONG_RUN.sub(hidden_if_a_token, EMAIL.sub("[email hidden]", text))


def hidden_if_a_token(match):
    """A long run of token characters is hidden when it reads like a secret: hex, or upper and
    lower case letters with digits (base64). A long hyphenated name, such as
    "claude-3-5-sonnet-20241022-computer-use", is shown."""
    run = match.group()
    mixed = any(c.isupper() for c in run) and any(c.islower() for c in run) and any(c.isdigit() for c in run)
    return "[hidden]" if mixed or HEX.fullmatch(run) else run


def spreadsheet_safe(cell):
    """A cell a spreadsheet will not run: agents name themselves, and "=HYPERLINK(…)" is a formula."""
    return f"'{cell}" if isinstance(cell, str) and cell[:1] in FORMULA_STARTS else cell


def shown_agent(row):
    return f"{shown(row.name)} {shown(row.version)}".strip()


class DateInput(forms.DateInput):
    input_type = "date"


class ActivityFilters(forms.Form):
    period = forms.ChoiceField(choices=[("today", "Today"), ("7d", "7 days"), ("30d", "30 days"),
                                        ("custom", "Custom range")], initial="7d", required=False)
    first = forms.DateField(required=False, label="From", widget=DateInput)
    last = forms.DateField(required=False, label="To", widget=DateInput)
    capability = forms.ChoiceField(required=False)
    agent = forms.CharField(required=False, max_length=200, label="Agent name")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        names = [capability.name for capability in current_config().capabilities]
        self.fields["capability"].choices = [("", "All"), *((name, name) for name in [report.SESSION_CREATE, *names])]

    def clean(self):
        data = super().clean()
        if data.get("period") == "custom":
            first, last = data.get("first"), data.get("last")
            if not first or not last:
                raise forms.ValidationError("A custom range needs both dates.")
            if last < first:
                raise forms.ValidationError("The range ends before it starts.")
            if (last - first).days >= LONGEST_RANGE_DAYS:
                raise forms.ValidationError(f"A range covers at most {LONGEST_RANGE_DAYS} days.")
        return data

    def filters(self):
        data = self.cleaned_data
        if data.get("period") == "custom":
            period = report.Period(data["first"], data["last"])
        else:
            today = recorder.today()
            period = report.Period(today - timedelta(days=PERIODS[data.get("period") or "7d"] - 1), today)
        return report.Filters(period, data.get("capability") or "", (data.get("agent") or "").strip())


@dataclass(frozen=True)
class Table:
    name: str
    title: str
    headers: list
    rows: list
    note: str = ""  # what the table cannot show, under it


def percent(share):
    return "" if share is None else f"{share:.1%}"


def tables_of(activity):
    codes = activity.codes
    answered = [row for row in activity.capabilities if row.median_us is not None]
    return {table.name: table for table in [
        Table("days", "Sessions and calls per day", ["Day", "Sessions started", "Calls"],
              [[f"{day:%Y-%m-%d}", activity.sessions_per_day[day], calls]
               for day, calls in activity.calls_per_day.items()]),
        Table("capabilities", "Calls per capability", ["Capability", "Calls", "Answered", "Refused", "Refused share",
                                                       *codes],
              [[row.name or "(no capability)", row.calls, row.calls - row.refused, row.refused,
                percent(row.refused_share), *(row.refusals[code] for code in codes)]
               for row in activity.capabilities]),
        Table("funnel", "Funnel", ["Step", "Sessions", "Conversion from the step before"],
              [[step.name, step.sessions, percent(step.conversion)] for step in activity.funnel],
              note=report.FUNNEL_NOTE),
        Table("agents", f"Busiest agents (top {report.BUSIEST_AGENTS})",
              ["Agent", "Version", "Calls", "Refused", "Refusal rate"],
              [[shown(row.name), shown(row.version), row.calls, row.refused, percent(row.refused_share)]
               for row in activity.agents]),
        Table("latency", "Latency of answered calls", ["Capability", "Answered calls", "Median (ms)", "p95 (ms)"],
              [[row.name or "(no capability)", sum(row.latency.values()), round_ms(row.median_us),
                round_ms(row.p95_us)] for row in answered]),
    ]}


def sections_of(activity):
    """[(table, its charts)], in the page's order."""
    if activity is None:
        return []
    charts = charts_of(activity, shown_agent)
    return [(table, [chart for chart in charts if chart.table == name]) for name, table in tables_of(activity).items()]


class AgentActivityAdmin(admin.ModelAdmin):
    """No rows to add, change or delete: the changelist is the activity page."""

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("agents_protocol.view_agent_activity")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_urls(self):
        return [
            path("", self.admin_site.admin_view(self.changelist_view), name="agents_protocol_agentcall_changelist"),
            path("<slug:table>.csv", self.admin_site.admin_view(self.csv_view), name="agents_protocol_agentcall_csv"),
        ]

    def activity_for(self, request):
        if not self.has_view_permission(request):
            raise PermissionDenied
        form = ActivityFilters(request.GET or None)
        recorder.calls.flush()  # this process's latest calls; other workers' follow within ACTIVITY_FLUSH_SECONDS
        if request.GET and not form.is_valid():
            return form, None
        if not request.GET:
            form = ActivityFilters({"period": "7d"})
            form.is_valid()
        return form, report.activity(form.filters())

    def changelist_view(self, request, extra_context=None):
        form, activity = self.activity_for(request)
        context = {
            **self.admin_site.each_context(request),
            "title": "Agent activity",
            "opts": self.model._meta,
            "form": form,
            "activity": activity,
            "sections": sections_of(activity),
            "query": request.GET.urlencode(),
            "flush_seconds": app_settings.ACTIVITY_FLUSH_SECONDS,
        }
        return TemplateResponse(request, "admin/agents_protocol/activity.html", context)

    def csv_view(self, request, table):
        _, activity = self.activity_for(request)
        if activity is None:
            raise Http404("Invalid filters.")
        found = tables_of(activity).get(table)
        if found is None:
            raise Http404("No such table.")
        period = activity.filters.period
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="agent-activity-{table}-{period.first}-{period.last}.csv"'
        writer = csv.writer(response)
        writer.writerow(found.headers)
        writer.writerows([spreadsheet_safe(cell) for cell in row] for row in found.rows)
        return response
