"""Record every call of the pipeline for the activity page, for about 10 µs of CPU a call.

A call is appended to its worker process's buffer (a tuple, no query); the buffer is written
as rows that count calls, one per group of calls the page cannot tell apart (same day,
capability, session, agent, status, code and latency bucket). Calls of many sessions rarely
group; one session repeating one call does, and its batch costs under 1 µs a call and holds the
write lock a tenth as long. The buffer is written with one bulk INSERT when it holds
ACTIVITY_BUFFER_SIZE calls, at the first call after its oldest call is ACTIVITY_FLUSH_SECONDS
old, when the activity page is opened in this process, and when the process exits. A worker
writing its calls also deletes those older than ACTIVITY_RETENTION_DAYS, at most once an hour. Losing a batch (the database is down) is
logged; the calls themselves have been answered.
"""
import atexit
import logging
import threading
import time
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.signals import setting_changed
from django.db import connections, router, transaction
from django.utils import timezone

from agents_protocol.activity.histogram import bucket_of
from agents_protocol.core.conf import app_settings
from agents_protocol.core.models import AgentCall

logger = logging.getLogger("agents_protocol.activity")

PRUNE_EVERY_SECONDS = 3600


class CallBuffer:
    def __init__(self):
        self.lock = threading.Lock()
        self.calls = []
        self.oldest = None  # time.monotonic() of the first call kept
        self.database = None  # the database the kept calls were made against (its NAME)
        self.last_prune = None
        self.forget_settings()

    def forget_settings(self):
        """Read the settings again at the next call (not now: they may be invalid, which check E004 reports)."""
        self.size = self.max_age = None

    def add(self, capability, session, status, code, duration_us):
        if self.size is None:
            self.size, self.max_age = app_settings.ACTIVITY_BUFFER_SIZE, app_settings.ACTIVITY_FLUSH_SECONDS
        if self.size <= 0:
            return
        agent = (session.agent_name, session.agent_version) if session is not None else ("", "")
        call = (time.time(), capability, session.pk if session is not None else None, *agent, status, code or "",
                duration_us)
        now = time.monotonic()
        with self.lock:
            self.calls.append(call)
            if self.oldest is None:
                self.oldest, self.database = now, database_name()
            due = len(self.calls) >= self.size or now - self.oldest >= self.max_age
        if due:
            self.flush()

    def take(self):
        return self.take_with_database()[0]

    def take_with_database(self):
        with self.lock:
            kept = self.calls, self.database
            self.calls, self.oldest, self.database = [], None, None
        return kept

    def flush(self):
        """Write the kept calls (and prune, when an hour has passed since); never raises.

        Calls made against another database than the one this process now uses are dropped: at
        exit after a test run, Django has switched back from the test database it destroyed, and
        the test's calls must not land in the real one.
        """
        calls, database = self.take_with_database()
        if not calls:
            return
        if database != database_name():
            logger.info("Dropped %d agent calls made against another database (%s)", len(calls), database)
            return
        try:
            insert(calls)
            self.prune_when_due()
        except Exception:
            logger.exception("Could not write %d agent calls for the activity page", len(calls))

    def prune_when_due(self):
        now = time.monotonic()
        if self.last_prune is not None and now - self.last_prune < PRUNE_EVERY_SECONDS:
            return
        self.last_prune = now
        prune(app_settings.ACTIVITY_RETENTION_DAYS)


COLUMNS = ("at", "day", "capability", "session_pk", "agent_name", "agent_version", "status", "code", "duration_us",
           "latency_bucket", "calls")
INSERT = (f"INSERT INTO {AgentCall._meta.db_table} ({', '.join(COLUMNS)})"
          f" VALUES ({', '.join(['%s'] * len(COLUMNS))})")


def database_name():
    return connections[router.db_for_write(AgentCall)].settings_dict["NAME"]


def insert(calls):
    """Write `calls` as one row per group of calls the page cannot tell apart."""
    write(grouped(calls))


def grouped(calls):
    """[(first call, day, latency bucket, calls)] of the groups of `calls` by everything the page reads."""
    zone = timezone.get_default_timezone()
    groups = {}
    for call in calls:
        at, capability, session_pk, agent_name, agent_version, status, code, duration_us = call
        day = datetime.fromtimestamp(at, zone).date()
        bucket = bucket_of(duration_us)
        key = (day, capability, session_pk, agent_name, agent_version, status, code, bucket)
        group = groups.get(key)
        if group is None:
            groups[key] = [call, day, bucket, 1]
        else:
            group[3] += 1
    return groups.values()


def one_row_each(calls):
    """Each call as a row of its own, as grouped() gives them: the worst case, for the bench."""
    zone = timezone.get_default_timezone()
    return [(call, datetime.fromtimestamp(call[0], zone).date(), bucket_of(call[7]), 1) for call in calls]


def write(groups):
    """One INSERT of many rows, values adapted as the ORM adapts them: bulk_create costs 40 µs a row
    on SQLite (model instances, the statement compiled), this about 5 (docs/performance.md)."""
    connection = connections[router.db_for_write(AgentCall)]
    ops = connection.ops
    rows = []
    for (at, *described, duration_us), day, bucket, count in groups:
        moment = datetime.fromtimestamp(at, UTC)
        if not settings.USE_TZ:
            moment = timezone.make_naive(moment)  # the database takes local times then
        rows.append((ops.adapt_datetimefield_value(moment), ops.adapt_datefield_value(day), *described, duration_us,
                     bucket, count))
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        cursor.executemany(INSERT, rows)


def today():
    """The current date in the site's time zone, whether USE_TZ is on or off (a shop's choice)."""
    return timezone.localdate() if settings.USE_TZ else timezone.now().date()


def prune(retention_days):
    """Delete the calls of days older than `retention_days` (today is day 0); returns how many."""
    cutoff = today() - timedelta(days=retention_days)
    deleted, _ = AgentCall.objects.filter(day__lt=cutoff).delete()
    return deleted


calls = CallBuffer()
atexit.register(calls.flush)


def _reload(setting, **kwargs):
    if setting == "AGENTS_PROTOCOL":
        calls.forget_settings()


setting_changed.connect(_reload)
