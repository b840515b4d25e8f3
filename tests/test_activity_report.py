"""What the activity page counts, from AgentCall rows written by the recorder's own INSERT:
periods and filters, refusals by code, the nested funnel and its paid step from the provider,
the busiest agents, and latency percentiles read off the fixed histogram."""
from datetime import UTC, datetime, time, timedelta
from io import StringIO
from typing import ClassVar

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db.models import Sum
from django.utils import timezone

from agents_protocol.activity import histogram, recorder, report
from agents_protocol.activity.page import shown
from agents_protocol.core.models import AgentCall
from agents_protocol.core.provider import ShopProvider
from tests.factories import make_agent_session

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()


def moment(days_ago=0, second=0):
    day = TODAY - timedelta(days=days_ago)
    return datetime.combine(day, time(12, 0, second), timezone.get_default_timezone()).astimezone(UTC).timestamp()


def record(capability, session=None, code="", duration_us=1000, days_ago=0, status=None):
    agent = (session.agent_name, session.agent_version) if session else ("", "")
    recorder.insert([(moment(days_ago), capability, session.pk if session else None, *agent,
                      status or (400 if code else 200), code, duration_us)])


def last(days):
    return report.Filters(report.Period(TODAY - timedelta(days=days - 1), TODAY))


def test_percentiles_come_within_the_bucket_width():
    counts = {histogram.bucket_of(1000): 90, histogram.bucket_of(10_000): 10}
    assert histogram.percentile_us(counts, 0.5) == pytest.approx(1000, rel=0.045)
    assert histogram.percentile_us(counts, 0.95) == pytest.approx(10_000, rel=0.045)
    assert histogram.percentile_us({}, 0.5) is None
    for duration in (1, 7, 250, 999_999):
        assert histogram.midpoint_us(histogram.bucket_of(duration)) == pytest.approx(duration, rel=0.045)


def test_calls_per_day_and_capability_with_refusals_by_code_in_the_period_only():
    session = make_agent_session(agent_name="bot", agent_version="1")
    record("search", days_ago=7)  # the day before a 7-day period
    record("search", days_ago=6)
    record("search", session, duration_us=400)
    record("search", session, duration_us=800)
    record("cart.add", session, code="invalid_params")
    record("cart.add", session, code="rate_limited", status=429)
    record("cart.add", session)

    activity = report.activity(last(7))
    assert list(activity.calls_per_day) == [TODAY - timedelta(days=n) for n in range(6, -1, -1)]
    assert activity.calls_per_day[TODAY] == 5 and activity.calls_per_day[TODAY - timedelta(days=6)] == 1
    assert activity.total_calls == 6
    rows = {row.name: row for row in activity.capabilities}
    assert (rows["search"].calls, rows["search"].refused) == (3, 0)
    assert (rows["cart.add"].calls, dict(rows["cart.add"].refusals)) == (3, {"invalid_params": 1, "rate_limited": 1})
    assert rows["cart.add"].refused_share == pytest.approx(2 / 3)
    assert rows["search"].median_us == pytest.approx(800, rel=0.045)
    assert rows["cart.add"].median_us == pytest.approx(1000, rel=0.045)  # the answered call only


def test_filters_narrow_to_one_capability_or_one_agent():
    ann, bob = make_agent_session(agent_name="ann", agent_version="2"), make_agent_session(agent_name="bob")
    for session in (ann, ann, bob):
        record("search", session)
    record("detail", ann)
    period = last(1).period

    only_search = report.activity(report.Filters(period, capability="search"))
    assert [row.name for row in only_search.capabilities] == ["search"] and only_search.total_calls == 3
    assert [(row.name, row.calls) for row in only_search.agents] == [("ann", 2), ("bob", 1)]
    only_ann = report.activity(report.Filters(period, agent="ann"))
    assert {row.name: row.calls for row in only_ann.capabilities} == {"search": 2, "detail": 1}
    assert [(row.name, row.version, row.calls) for row in only_ann.agents] == [("ann", "2", 3)]


def test_busiest_agents_with_their_refusal_rates_and_sessionless_calls_apart():
    ann = make_agent_session(agent_name="ann", agent_version="2")
    for code in ("", "", "", "rate_limited"):
        record("search", ann, code=code)
    record("search")
    agents = report.activity(last(1)).agents
    assert [(a.name, a.version, a.calls, a.refused, a.refused_share) for a in agents] == [
        ("ann", "2", 4, 1, 0.25), (report.NO_AGENT, "", 1, 0, 0.0)]


class OrdersProvider(ShopProvider):
    """A shop whose order.status says which sessions paid (the base class's paid_sessions asks it)."""

    paid: ClassVar[set] = set()

    def order_status(self, context, *, order_id):
        status = "confirmed" if context.session.pk in self.paid else "pending"
        return {"orders": [{"order_id": "o-1", "status": status}]}


def test_the_funnel_nests_each_step_in_the_one_before_and_asks_the_shop_who_paid(settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "PROVIDER": f"{__name__}.OrdersProvider"}
    sessions = [make_agent_session(agent_name=f"a{n}") for n in range(6)]
    paths = [
        ("search", "cart.add", "checkout"),  # pays
        ("browse", "cart.add", "checkout"),
        ("search", "cart.add"),
        ("search",),
        (),
        ("cart.add", "checkout"),  # searched without its token: counted as having searched
    ]
    for session, path in zip(sessions, paths, strict=True):
        record("session.create", session, status=201)
        for capability in path:
            record(capability, session)
    record("search", sessions[4], code="rate_limited", status=429)  # a refused search is no step
    OrdersProvider.paid = {sessions[0].pk}
    funnel = report.activity(last(1)).funnel
    assert [(step.name, step.sessions) for step in funnel] == [
        ("sessions", 6), ("searched", 5), ("added to cart", 4), ("checked out", 3), ("paid", 1)]
    assert [step.conversion for step in funnel] == [None, pytest.approx(5 / 6), 0.8, 0.75, pytest.approx(1 / 3)]


def test_calls_grouped_into_rows_that_count_them_give_the_report_of_one_row_each():
    ann, bob = make_agent_session(agent_name="ann", agent_version="2"), make_agent_session(agent_name="bob")
    calls = []
    for days_ago in (0, 0, 3):
        for session in (ann, ann, bob, None):
            agent = (session.agent_name, session.agent_version) if session else ("", "")
            pk = session.pk if session else None
            calls += [(moment(days_ago, second), capability, pk, *agent, 200, "", duration_us)
                      for second, (capability, duration_us) in enumerate(
                          [("session.create", 300), ("search", 1000), ("search", 1010), ("search", 5000),
                           ("cart.add", 800), ("checkout", 2000)])]
            calls.append((moment(days_ago), "search", pk, *agent, 429, "rate_limited", 90))
    every = [last(7), report.Filters(last(7).period, capability="search"), report.Filters(last(7).period, agent="ann")]

    recorder.insert(calls)
    grouped = [report.activity(filters) for filters in every]
    assert AgentCall.objects.count() < len(calls) == AgentCall.objects.aggregate(calls=Sum("calls"))["calls"]
    AgentCall.objects.all().delete()
    recorder.write(recorder.one_row_each(calls))
    assert AgentCall.objects.count() == len(calls)

    assert [report.activity(filters) for filters in every] == grouped
    assert grouped[0].total_calls == len(calls) and grouped[0].funnel[1].sessions == 2


def test_the_page_bench_fills_a_scratch_database_times_the_page_and_leaves_no_user():
    out = StringIO()
    call_command("agents_activity_bench", "--calls", "300", "--rounds", "1", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[1].startswith("300 calls in 300 rows")
    assert [line.split(":")[0] for line in lines[2:]] == [
        "30 days", "30 days, capability search", "30 days, one agent", "7 days"]
    assert not get_user_model().objects.filter(is_staff=True).exists()


@pytest.mark.parametrize("name, shown_as", [
    ("claude-3-5-sonnet-20241022-computer-use", "claude-3-5-sonnet-20241022-computer-use"),
    ("acme-shopping-assistant-production", "acme-shopping-assistant-production"),
    ("bot ops@example.com", "bot [email hidden]"),
    ("bot eR_oA3oZOLEeLtd4a16AE7Qnb1BqIUdhD70Xh17t4aA", "bot [hidden]"),  # a session token's shape
    ("bot 9f86d081884c7d659a2feaa0c55ad015", "bot [hidden]"),
])
def test_names_that_read_like_secrets_are_hidden_and_long_names_are_not(name, shown_as):
    assert shown(name) == shown_as
