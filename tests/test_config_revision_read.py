"""current_revision() reads the configuration's number with one fixed statement on Django's
cursor, on SQLite and PostgreSQL, failing with Django's DatabaseError; Django's query capture
and execute wrappers see it."""
import dj_database_url
import pytest
from django.db import DatabaseError, connection, transaction
from django.db.models import QuerySet
from django.db.transaction import TransactionManagementError
from django.db.utils import ConnectionHandler
from django.test.utils import CaptureQueriesContext

from agents_protocol.core.config import (
    REVISION_STATEMENT,
    bump_revision,
    current_revision,
    read_revision,
)
from agents_protocol.models import ConfigRevision

pytestmark = pytest.mark.django_db


def test_the_revision_is_the_saved_number():
    bump_revision()
    bump_revision()
    assert current_revision() == ConfigRevision.objects.get(pk=1).number >= 2


def test_a_save_that_finds_the_row_created_meanwhile_still_moves_the_number(monkeypatch):
    # The row missing (a flush), two saves at once: the second finds it made by the first.
    ConfigRevision.objects.filter(pk=1).delete()
    ConfigRevision.objects.create(pk=1, number=5)  # the other save's, after this one's UPDATE missed
    real_update = QuerySet.update
    missed = []

    def first_update_misses(queryset, **values):
        if not missed and queryset.model is ConfigRevision:
            missed.append(True)
            return 0
        return real_update(queryset, **values)

    monkeypatch.setattr(QuerySet, "update", first_update_misses)
    bump_revision()
    assert ConfigRevision.objects.get(pk=1).number == 6


def test_while_django_records_queries_the_read_is_recorded():
    bump_revision()
    with CaptureQueriesContext(connection) as captured:
        revision = current_revision()
    assert revision == ConfigRevision.objects.get(pk=1).number
    assert [query["sql"] for query in captured.captured_queries] == [REVISION_STATEMENT]


def test_an_execute_wrapper_sees_the_read():
    seen = []

    def note(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(note):
        current_revision()
    assert seen == [REVISION_STATEMENT]


def test_a_transaction_marked_for_rollback_refuses_the_read_as_djangos_cursor_does():
    with transaction.atomic():
        transaction.set_rollback(True)
        with pytest.raises(TransactionManagementError):
            current_revision()


def test_before_the_first_save_the_revision_is_0():
    ConfigRevision.objects.all().delete()
    assert current_revision() == 0


def other_database(url):
    """A connection of its own to the database at `url` (settings completed as Django completes them)."""
    return ConnectionHandler({"default": dj_database_url.parse(url)})["default"]


def test_a_database_without_the_table_fails_with_djangos_database_error(tmp_path):
    empty = other_database(f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    try:
        with pytest.raises(DatabaseError) as failure:
            read_revision(empty)
    finally:
        empty.close()
    assert type(failure.value).__module__ == "django.db.utils"  # wrapped, not sqlite3's own


def test_a_database_that_cannot_be_opened_fails_with_djangos_database_error(tmp_path):
    unreachable = other_database(f"sqlite:///{tmp_path / 'no-such-directory' / 'db.sqlite3'}")
    with pytest.raises(DatabaseError) as failure:
        read_revision(unreachable)
    assert type(failure.value).__module__ == "django.db.utils"


def test_postgresql_reads_the_revision_and_fails_with_djangos_database_error(postgres_server):
    database = other_database(postgres_server.create_database("revision_read"))
    try:
        with pytest.raises(DatabaseError) as failure:
            read_revision(database)
        assert type(failure.value).__module__ == "django.db.utils"
        with database.cursor() as cursor:
            cursor.execute(f"CREATE TABLE {ConfigRevision._meta.db_table} (id integer PRIMARY KEY, number integer)")
            cursor.execute(f"INSERT INTO {ConfigRevision._meta.db_table} VALUES (1, 42)")
        assert read_revision(database) == 42
    finally:
        database.close()
