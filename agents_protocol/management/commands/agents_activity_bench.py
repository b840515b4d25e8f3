"""Time the agent activity page over many calls: `manage.py agents_activity_bench [--calls N]`.

Fills the configured database, which must hold no agent calls yet (a scratch one:
DATA_DIR=/tmp/x or DATABASE_URL=postgres://…/scratch, migrated), with N synthetic calls
(default 1,000,000) spread over the last 30 days, written through the recorder's own INSERT one
row per call (the worst case: the recorder groups a batch's like calls into one row), then
prints how long the page's queries and the whole page take for a few filters (best and median
of --rounds). --no-fill times the page over the calls already there, writing nothing but a
staff user to log in with, deleted again at the end. docs/performance.md has the numbers.
"""
import random
import statistics
import time
from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Count, Sum
from django.test import Client
from django.utils import timezone

from agents_protocol.activity import recorder, report
from agents_protocol.core.models import AgentCall, AgentSession

DAYS = 30
CALLS_PER_SESSION = 20
SESSIONLESS_SHARE = 0.2  # searches without a session
BROWSING = (("search", 30), ("detail", 25), ("browse", 10), ("cart.add", 10), ("cart.view", 8),
            ("order.status", 3), ("cart.update", 2), ("contact", 1))
REFUSALS = (("rate_limited", 4), ("invalid_params", 2), ("insufficient_stock", 1), ("session_required", 1))
STATUS_OF = {"rate_limited": 429, "invalid_params": 400, "insufficient_stock": 409, "session_required": 401}
AGENTS = [(f"bench-agent-{n}", f"{1 + n % 3}.{n % 2}") for n in range(50)]


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("--calls", type=int, default=1_000_000)
        parser.add_argument("--rounds", type=int, default=5)
        parser.add_argument("--seed", type=int, default=22)
        parser.add_argument("--no-fill", action="store_true", help="time the calls already in the database")

    def handle(self, *args, calls, rounds, seed, no_fill, **options):
        if not no_fill:
            self.fill(calls, seed)
        stored = AgentCall.objects.aggregate(rows=Count("*"), calls=Sum("calls"))
        self.stdout.write(f"{stored['calls'] or 0} calls in {stored['rows']} rows, "
                          f"{AgentSession.objects.count()} sessions.")
        today = recorder.today()
        month, week = report.Period(today - timedelta(days=DAYS - 1), today), report.Period(today - timedelta(days=6), today)
        cases = {
            "30 days": (report.Filters(month), "period=30d"),
            "30 days, capability search": (report.Filters(month, capability="search"), "period=30d&capability=search"),
            "30 days, one agent": (report.Filters(month, agent=AGENTS[0][0]), f"period=30d&agent={AGENTS[0][0]}"),
            "7 days": (report.Filters(week), "period=7d"),
        }
        user = temporary_staff_user()
        try:
            self.time_cases(cases, rounds, user)
        finally:
            user.delete()

    def time_cases(self, cases, rounds, user):
        client = Client()
        client.force_login(user)
        for name, (filters, query) in cases.items():
            first = client.get(f"/admin/agents_protocol/agentcall/?{query}")  # reads the indexes from disk
            if first.status_code != 200:
                raise CommandError(f"The page answered {first.status_code}.")
            queries = timed(rounds, lambda filters=filters: report.activity(filters))
            page = timed(rounds, lambda query=query: client.get(f"/admin/agents_protocol/agentcall/?{query}"))
            self.stdout.write(f"{name}: queries {queries[0] * 1000:.0f} ms (median {queries[1] * 1000:.0f}), "
                              f"whole page {page[0] * 1000:.0f} ms (median {page[1] * 1000:.0f}), {rounds} rounds")

    def fill(self, calls, seed):
        if AgentCall.objects.exists():
            raise CommandError("This database holds agent calls already: run the bench on a scratch database "
                               "(or time them with --no-fill).")
        started = time.perf_counter()
        written = fill(calls, random.Random(seed))
        elapsed = time.perf_counter() - started
        self.stdout.write(f"Wrote {written} calls in {elapsed:.1f} s ({elapsed / written * 1e6:.1f} us a call, "
                          "the synthetic sessions included).")


def temporary_staff_user():
    """A superuser to open the page with, by whatever field the project's user model logs in."""
    user_model = get_user_model()
    return user_model.objects.create(**{user_model.USERNAME_FIELD: f"activity-bench-{time.time_ns()}"},
                                     is_staff=True, is_superuser=True)


def timed(rounds, run):
    """(best, median) seconds of `rounds` runs."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times)


def fill(calls, rng, batch=10_000):
    """Sessions that go as far down the funnel as chance takes them, their calls, and sessionless
    searches, at random moments of the last DAYS days; returns how many calls were written."""
    sessions = AgentSession.objects.bulk_create(
        synthetic_session(n, rng) for n in range(int(calls * (1 - SESSIONLESS_SHARE)) // CALLS_PER_SESSION))
    pending, written, now = [], 0, time.time()
    for session in sessions:
        agent = (session.agent_name, session.agent_version)
        start = session.created_at.timestamp()
        for offset, capability, code in session_calls(rng):
            pending.append(call(min(start + offset, now), capability, session.pk, agent, code, rng))
    while len(pending) < calls:
        pending.append(call(random_moment(rng), "search", None, ("", ""), weighted(rng, REFUSALS, 0.05), rng))
    rng.shuffle(pending)
    for first in range(0, calls, batch):
        recorder.write(recorder.one_row_each(pending[first:first + batch]))
        written += len(pending[first:first + batch])
    return written


def synthetic_session(n, rng):
    name, version = rng.choice(AGENTS)
    created = datetime.fromtimestamp(random_moment(rng), UTC)
    return AgentSession(public_id=f"ses_bench{n}", token_hash=f"{n:064x}", client_address="127.0.0.1",
                        agent_name=name, agent_version=version, created_at=created,
                        expires_at=created + timedelta(minutes=30))


def session_calls(rng):
    """(seconds after the start, capability, refusal code or "") of one session's calls."""
    steps = ["session.create", "search"]
    if rng.random() < 0.5:
        steps.append("cart.add")
        if rng.random() < 0.3:
            steps.append("checkout")
    steps += [weighted(rng, BROWSING) for _ in range(CALLS_PER_SESSION - len(steps))]
    return [(n * 20.0, capability, "" if n < 2 else weighted(rng, REFUSALS, 0.08))
            for n, capability in enumerate(steps)]


def call(at, capability, session_pk, agent, code, rng):
    duration_us = int(rng.lognormvariate(6.5, 0.7)) + 50 if not code else int(rng.lognormvariate(5, 0.3))
    return (at, capability, session_pk, *agent, STATUS_OF.get(code, 200), code, duration_us)


def weighted(rng, choices, share=1.0):
    """One of `choices` by weight, with probability `share`; "" otherwise."""
    if rng.random() >= share:
        return ""
    names, weights = zip(*choices, strict=True)
    return rng.choices(names, weights)[0]


def random_moment(rng):
    """A Unix time in the last DAYS days (today included, until now)."""
    now = time.time()
    start = datetime.combine(recorder.today() - timedelta(days=DAYS - 1), datetime.min.time(),
                             timezone.get_default_timezone()).timestamp()
    return rng.uniform(start, now)
