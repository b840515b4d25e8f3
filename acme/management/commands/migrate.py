"""`manage.py migrate`: Django's, one process at a time on a database.

Instances starting together run it at once (deploy/entrypoint.sh migrates before gunicorn
starts unless MIGRATE_ON_START=0), and Django's command does not expect company: the loser
fails on a table the winner just created, and its container exits. So the run holds a lock:
PostgreSQL's advisory lock (every host), or on SQLite an exclusive flock on a file beside the
database (one host). The process that waited then finds nothing left to apply.
"""
import fcntl
from contextlib import contextmanager

from django.core.management.commands.migrate import Command as DjangoMigrateCommand
from django.db import connections

# PostgreSQL's two-key form, apart from the one-key locks of agents_protocol's session limit.
ADVISORY_LOCK = (0x61636D65, 1)  # "acme", migrations


class Command(DjangoMigrateCommand):
    def handle(self, *args, **options):
        with one_at_a_time(connections[options["database"]]):
            return super().handle(*args, **options)


@contextmanager
def one_at_a_time(connection):
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", ADVISORY_LOCK)
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", ADVISORY_LOCK)
    elif connection.vendor == "sqlite" and not connection.is_in_memory_db():
        with open(f"{connection.settings_dict['NAME']}.migrate-lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            yield
    else:
        yield
