"""`/healthz` for load balancers: can this instance use its database and its cache? And
`/healthz/live` for container health checks: is the process serving at all?

The two differ when a shared dependency fails: every instance then answers `/healthz` 503 (the
agent API cannot serve without it), which takes them out of the load balancer, while
`/healthz/live` stays 200, so an orchestrator does not restart all of them for a failure no
restart mends.

200 `{"ok": true, "instance": "…", "checks": {"database": "ok", "cache": "ok"}}`, or 503 with
`"ok": false` and the failing check named, e.g. `"database": "failed: OperationalError"` (the
details go to the log, not to the prober). `instance` is settings.INSTANCE_NAME (the
environment's INSTANCE_NAME, else the host name: a container's id), so a probe through a load
balancer can tell which instance answered.

The database check is what serving needs, not only a connection: every migration this code
ships is recorded as applied, and a row written to a table of the check's own (acme.WriteProbe)
is rolled back. An unmigrated, read-only or deleted database still answers `SELECT 1` (a deleted
SQLite file is opened anew, without tables: acme/embedded/sqlite/base.py).

A middleware placed first in MIDDLEWARE (inside only the one that adds the agents.json Link
header, which reads nothing) answers it, before host validation, the HTTPS redirect and the
agent API's configuration read: a probe from the load balancer's own address gets the truth
even while the database is down.
"""
import functools
import logging
import secrets

from django.conf import settings
from django.core.cache import caches
from django.db import transaction
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder
from django.http import JsonResponse

from acme.models import WriteProbe

PATH = "/healthz"
LIVE_PATH = "/healthz/live"

logger = logging.getLogger(__name__)


class MigrationsNotApplied(Exception):
    """The database lacks migrations this code ships: `manage.py migrate` has not run on it."""


def check_database():
    check_migrations()
    check_writable()


def check_migrations():
    applied = set(MigrationRecorder.Migration.objects.values_list("app", "name"))
    missing = shipped_migrations() - applied
    if missing:
        raise MigrationsNotApplied(f"{len(missing)} migrations not applied, e.g. {min(missing)}")


@functools.cache
def shipped_migrations():
    """Every migration of the installed apps, read from disk once per process."""
    return frozenset(MigrationLoader(None, ignore_no_migrations=True).graph.nodes)


def check_writable():
    with transaction.atomic():
        WriteProbe.objects.create()
        transaction.set_rollback(True)


def check_cache():
    """A round trip through every configured cache (the embedded profile has two: the default and
    the rate-limit counters, which hold integers only)."""
    for alias in settings.CACHES:
        cache = caches[alias]
        key, value = f"healthz:{secrets.token_hex(8)}", secrets.randbits(62)
        cache.set(key, value, timeout=10)
        stored = cache.get(key)
        cache.delete(key)
        if stored != value:
            raise RuntimeError(f"the cache {alias!r} did not return the value just stored")


CHECKS = {"database": check_database, "cache": check_cache}


def run_checks():
    results = {}
    for name, check in CHECKS.items():
        try:
            check()
            results[name] = "ok"
        except Exception as error:  # any failure is the answer a probe needs
            logger.exception("Health check %r failed", name)
            results[name] = f"failed: {type(error).__name__}"
    return results


class HealthCheckMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path == PATH:
            results = run_checks()
            healthy = all(result == "ok" for result in results.values())
            return probe_answer({"ok": healthy, "instance": settings.INSTANCE_NAME, "checks": results},
                                200 if healthy else 503)
        if request.path == LIVE_PATH:
            return probe_answer({"ok": True, "instance": settings.INSTANCE_NAME}, 200)
        return self.get_response(request)


def probe_answer(body, status):
    response = JsonResponse(body, status=status)
    response["Cache-Control"] = "no-store"
    return response
