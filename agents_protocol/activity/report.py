"""What the activity page shows, counted by the database from AgentCall rows.

Every query groups by a prefix of one of AgentCall's indexes, so the database reads an index
range in order and never sorts; Python only adds up the few thousand groups. A period is whole
days in TIME_ZONE, first and last included.
"""
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.db.models import Case, Count, IntegerField, Max, When

from agents_protocol.activity.histogram import percentile_us
from agents_protocol.core.models import AgentCall, AgentSession
from agents_protocol.core.provider import get_provider

SESSION_CREATE = "session.create"
# The funnel's steps after "sessions", each reached by a successful call of one of its capabilities
# in a session that reached every step before it; "paid" comes from the shop (ShopProvider.paid_sessions).
FUNNEL_STEPS = (
    ("searched", ("search", "browse")),
    ("added to cart", ("cart.add",)),
    ("checked out", ("checkout",)),
)
BUSIEST_AGENTS = 10
NO_AGENT = "(no session)"


@dataclass(frozen=True)
class Period:
    first: date
    last: date

    @property
    def days(self):
        return [self.first + timedelta(days=n) for n in range((self.last - self.first).days + 1)]


@dataclass(frozen=True)
class Filters:
    period: Period
    capability: str = ""
    agent: str = ""


@dataclass
class CapabilityRow:
    name: str
    calls: int = 0
    refusals: Counter = field(default_factory=Counter)  # code → calls
    latency: Counter = field(default_factory=Counter)  # bucket → successful calls

    @property
    def refused(self):
        return sum(self.refusals.values())

    @property
    def refused_share(self):
        return self.refused / self.calls if self.calls else 0.0

    @property
    def median_us(self):
        return percentile_us(self.latency, 0.5)

    @property
    def p95_us(self):
        return percentile_us(self.latency, 0.95)


@dataclass(frozen=True)
class AgentRow:
    name: str
    version: str
    calls: int
    refused: int

    @property
    def refused_share(self):
        return self.refused / self.calls if self.calls else 0.0


@dataclass(frozen=True)
class FunnelStep:
    name: str
    sessions: int
    conversion: float | None  # of the step before; None for the first


@dataclass
class Activity:
    filters: Filters
    calls_per_day: dict
    sessions_per_day: dict
    capabilities: list
    agents: list
    funnel: list

    @property
    def codes(self):
        """Every refusal code of the period, most frequent first."""
        totals = Counter()
        for row in self.capabilities:
            totals.update(row.refusals)
        return [code for code, _ in totals.most_common()]

    @property
    def total_calls(self):
        return sum(self.calls_per_day.values())


def activity(filters):
    calls_per_day, capabilities = calls_by_day_and_capability(filters)
    return Activity(
        filters=filters,
        calls_per_day=calls_per_day,
        sessions_per_day=sessions_by_day(filters),
        capabilities=capabilities,
        agents=busiest_agents(filters),
        funnel=funnel(filters),
    )


def calls_in(filters, **conditions):
    period = filters.period
    calls = AgentCall.objects.filter(day__gte=period.first, day__lte=period.last, **conditions)
    if filters.agent:
        calls = calls.filter(agent_name=filters.agent)
    return calls.order_by()


def calls_by_day_and_capability(filters):
    """({day: calls}, [CapabilityRow]) from one pass over the index of (day, capability …), or over
    the index of (day, agent …) when one agent is asked for."""
    calls = calls_in(filters, **({"capability": filters.capability} if filters.capability else {}))
    grouping = ("day", "capability", "latency_bucket", "code")
    if filters.agent:
        grouping = ("day", "agent_name", "agent_version", "code", "capability", "latency_bucket")
    per_day, rows = Counter({day: 0 for day in filters.period.days}), {}
    for group in calls.values(*grouping).annotate(calls=Count("*")):
        count = group["calls"]
        per_day[group["day"]] += count
        row = rows.setdefault(group["capability"], CapabilityRow(group["capability"]))
        row.calls += count
        if group["code"]:
            row.refusals[group["code"]] += count
        else:
            row.latency[group["latency_bucket"]] += count
    return dict(sorted(per_day.items())), sorted(rows.values(), key=lambda row: (-row.calls, row.name))


def sessions_by_day(filters):
    """Sessions started per day (successful session.create calls), whatever the capability filter."""
    per_day = Counter({day: 0 for day in filters.period.days})
    started = calls_in(filters, capability=SESSION_CREATE, code="")
    for group in started.values("day").annotate(sessions=Count("*")):
        per_day[group["day"]] += group["sessions"]
    return dict(sorted(per_day.items()))


def busiest_agents(filters):
    calls = calls_in(filters, **({"capability": filters.capability} if filters.capability else {}))
    totals = defaultdict(lambda: [0, 0])
    for group in calls.values("day", "agent_name", "agent_version", "code").annotate(calls=Count("*")):
        counts = totals[(group["agent_name"], group["agent_version"])]
        counts[0] += group["calls"]
        if group["code"]:
            counts[1] += group["calls"]
    rows = [AgentRow(name or NO_AGENT, version, calls, refused) for (name, version), (calls, refused) in totals.items()]
    return sorted(rows, key=lambda row: (-row.calls, row.name, row.version))[:BUSIEST_AGENTS]


def funnel(filters):
    """Sessions started in the period → those that then searched → added to cart → checked out →
    paid: each step counts the sessions of the step before that made a successful call of it."""
    steps = [(SESSION_CREATE,), *(capabilities for _, capabilities in FUNNEL_STEPS)]
    flags = {f"step{n}": Max(Case(When(capability__in=names, then=1), default=0, output_field=IntegerField()))
             for n, names in enumerate(steps)}
    calls = calls_in(filters, code="", session_pk__isnull=False,
                     capability__in=[name for names in steps for name in names])
    reached = [0] * len(steps)
    checked_out = []
    for session in calls.values("session_pk").annotate(**flags):
        for n in range(len(steps)):
            if not session[f"step{n}"]:
                break
            reached[n] += 1
        else:
            checked_out.append(session["session_pk"])
    counts = [*reached, len(paid_sessions(checked_out))]
    names = ["sessions", *(name for name, _ in FUNNEL_STEPS), "paid"]
    return [FunnelStep(name, count, None if n == 0 else (count / counts[n - 1] if counts[n - 1] else 0.0))
            for n, (name, count) in enumerate(zip(names, counts, strict=True))]


def paid_sessions(session_pks, chunk=500):
    """The pks among `session_pks` whose sessions have a paid order, as the shop's provider says."""
    provider, paid = get_provider(), set()
    for start in range(0, len(session_pks), chunk):
        sessions = list(AgentSession.objects.filter(pk__in=session_pks[start:start + chunk]))
        paid |= set(provider.paid_sessions(sessions))
    return paid
