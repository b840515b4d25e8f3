"""/healthz checks what serving needs (every migration applied, a write that succeeds), and a
SQLite connection that can no longer write to its database file is replaced, in process.

A real server on its own data directory, from empty to deleted, is in test_faults_database_files.py.
"""
import pytest
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, OperationalError, connection
from django.db.migrations.recorder import MigrationRecorder
from django.db.utils import ConnectionHandler

pytestmark = pytest.mark.django_db


def database_check(client):
    response = client.get("/healthz")
    return response.status_code, response.json()["checks"]["database"]


@pytest.fixture
def refusing_writes(db):
    """The test's connection refusing writes as SQLite's read-only ones do (query_only gives the
    same SQLITE_READONLY, "attempt to write a readonly database"). The test's transaction keeps
    this connection, so it is made usable again afterwards instead of being replaced."""
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA query_only = ON")
    yield
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA query_only = OFF")
    connection.refused_write = False


def test_a_migrated_database_that_takes_writes_is_healthy(client):
    assert database_check(client) == (200, "ok")


def test_a_migration_not_applied_is_503(client):
    MigrationRecorder.Migration.objects.filter(app="acme", name="0001_initial").delete()
    assert database_check(client) == (503, "failed: MigrationsNotApplied")


def test_a_database_that_refuses_writes_is_503(client, refusing_writes):
    assert database_check(client) == (503, "failed: OperationalError")


@pytest.fixture
def own_database(tmp_path):
    """A connection of the site's SQLite backend to a database file of the test's own."""
    handler = ConnectionHandler({DEFAULT_DB_ALIAS: {**settings.DATABASES[DEFAULT_DB_ALIAS],
                                                    "NAME": str(tmp_path / "db.sqlite3")}})
    own = handler[DEFAULT_DB_ALIAS]
    execute(own, "CREATE TABLE note (text TEXT)")
    yield own
    own.close()


def execute(own, sql):
    with own.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


def test_a_connection_that_refused_a_write_as_read_only_is_replaced_when_the_request_ends(own_database):
    # SQLite opens a file it may not write read-only, and the connection stays so after the file is
    # writable again: kept for CONN_MAX_AGE, it refused every write for ten minutes.
    execute(own_database, "PRAGMA query_only = ON")
    with pytest.raises(OperationalError, match="attempt to write a readonly database"):
        execute(own_database, "INSERT INTO note VALUES ('refused')")
    own_database.close_if_unusable_or_obsolete()  # what Django runs as a request ends, and before the next
    execute(own_database, "INSERT INTO note VALUES ('written')")
    assert execute(own_database, "SELECT text FROM note") == [("written",)]


def test_a_connection_whose_database_file_was_deleted_opens_the_path_anew(own_database, tmp_path):
    for path in tmp_path.glob("db.sqlite3*"):
        path.unlink()
    own_database.close_if_unusable_or_obsolete()  # a new request
    # Not the deleted file, where writes would be lost at the next restart: the new one, without tables.
    with pytest.raises(OperationalError, match="no such table: note"):
        execute(own_database, "INSERT INTO note VALUES ('lost')")
    assert (tmp_path / "db.sqlite3").exists()

