"""What the activity page shows, counted by the database from AgentCall rows, each of which
counts `calls` calls (activity/recorder.py): every count here is a sum of `calls`.

Every query groups by a prefix of one of AgentCall's indexes, so the database reads an index
range in order and never sorts; Python only adds up the few thousand groups. A period is whole
days in TIME_ZONE, first and last included.
"""
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.db.models import Sum

from agents_protocol.activity.histogram import percentile_us
from agents_protocol.core.models import AgentCall
from agents_protocol.core.provider import get_provider

SESSION_CREATE = "session.create"
# The funnel's steps after "sessions", each reached by a session started in the period with a
# successful call of one of its capabilities or of a later step's (a session that added to its cart
# found the item somehow); "paid" comes from the shop (ShopProvider.paid_sessions).
FUNNEL_STEPS = (
    ("searched", ("search", "browse")),
    ("added to cart", ("cart.add",)),
    ("checked out", ("checkout",)),
)
FUNNEL_NOTE = (
    "Search, browse and detail need no session: a call made without the session's token belongs to no session. "
    "So \"searched\" counts the sessions that searched with their token and those that went on to add to the "
    "cart; what an agent looked at before it created its session is not seen.")
BUSIEST_AGENTS = 10
NO_AGENT = "(no session, or unnamed)"  # calls are kept by agent name: a session made without one has none


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
    the index of (day, agent …) when one agent is asked for.

    Conditions on `code` or `capability` would make SQLite sort the groups instead of reading them
    in the index's order, or read the funnel's index and then every row (3 and 5 times slower on a
    million calls), so the one capability asked for is picked out here.
    """
    calls = calls_in(filters)
    grouping = ("day", "capability", "code", "latency_bucket")
    if filters.agent:
        grouping = ("day", "agent_name", "agent_version", "code", "capability", "latency_bucket")
    groups = calls.values(*grouping).annotate(counted=Sum("calls")).values_list(
        "day", "capability", "code", "latency_bucket", "counted")
    per_day, rows = Counter({day: 0 for day in filters.period.days}), {}
    for day, capability, code, bucket, count in groups:
        if filters.capability and capability != filters.capability:
            continue
        per_day[day] += count
        row = rows.get(capability) or rows.setdefault(capability, CapabilityRow(capability))
        row.calls += count
        if code:
            row.refusals[code] += count
        else:
            row.latency[bucket] += count
    return dict(sorted(per_day.items())), sorted(rows.values(), key=lambda row: (-row.calls, row.name))


def sessions_by_day(filters):
    """Sessions started per day (successful session.create calls), whatever the capability filter."""
    per_day = Counter({day: 0 for day in filters.period.days})
    started = calls_in(filters, capability=SESSION_CREATE, code="")
    for group in started.values("day").annotate(sessions=Sum("calls")):
        per_day[group["day"]] += group["sessions"]
    return dict(sorted(per_day.items()))


def busiest_agents(filters):
    """The agents with the most calls, from the index of (day, agent …); the capability asked for
    is picked out here, as in calls_by_day_and_capability."""
    grouping = ("day", "agent_name", "agent_version", "code", *(("capability",) if filters.capability else ()))
    groups = calls_in(filters).values(*grouping).annotate(counted=Sum("calls")).values_list(
        "agent_name", "agent_version", "code", "counted", *grouping[4:])
    totals = defaultdict(lambda: [0, 0])
    for name, version, code, count, *capability in groups:
        if capability and capability[0] != filters.capability:
            continue
        counts = totals[(name, version)]
        counts[0] += count
        if code:
            counts[1] += count
    rows = [AgentRow(name or NO_AGENT, version, calls, refused) for (name, version), (calls, refused) in totals.items()]
    return sorted(rows, key=lambda row: (-row.calls, row.name, row.version))[:BUSIEST_AGENTS]


def funnel(filters):
    """Sessions started in the period → those that searched → added to cart → checked out → paid:
    a step counts the sessions that made a successful call of it or of any later step (FUNNEL_NOTE).
    One read of the funnel index per capability, the distinct sessions in its order."""
    started = sessions_calling(filters, SESSION_CREATE)
    called = [started & set().union(*(sessions_calling(filters, name) for name in capabilities))
              for _, capabilities in FUNNEL_STEPS]
    reached, went_further = [], set()
    for sessions in reversed(called):
        went_further |= sessions
        reached.insert(0, set(went_further))
    reached.insert(0, started)
    paid = paid_sessions(sorted(reached[-1]))
    counts = [*(len(sessions) for sessions in reached), len(paid)]
    names = ["sessions", *(name for name, _ in FUNNEL_STEPS), "paid"]
    return [FunnelStep(name, count, None if n == 0 else (count / counts[n - 1] if counts[n - 1] else 0.0))
            for n, (name, count) in enumerate(zip(names, counts, strict=True))]


def sessions_calling(filters, capability):
    """The pks of the sessions with a successful call of `capability` in the period."""
    calls = calls_in(filters, capability=capability, code="", session_pk__isnull=False)
    return set(calls.values_list("session_pk", flat=True).distinct())


def paid_sessions(session_pks, chunk=2000):
    """The pks among `session_pks` whose sessions have a paid order, as the shop's provider says
    (in chunks: SQLite takes at most 32,766 parameters in a statement)."""
    provider, paid = get_provider(), set()
    for start in range(0, len(session_pks), chunk):
        paid |= set(provider.paid_sessions(session_pks[start:start + chunk]))
    return paid
