"""The embedded SQLite backend's cursors (acme/embedded/sqlite/base.py): they keep the statements
they converted to the sqlite3 module's placeholders, a kept conversion answering as Django's own,
and fetch through methods of their own that translate the driver's errors as Django's do."""
import sqlite3

import pytest
from django.db import OperationalError, connection

from acme.embedded.sqlite.base import (
    KEPT_CONVERSIONS,
    KEPT_STATEMENT_LENGTH,
    ConversionKeepingCursor,
    DirectCursorWrapper,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversions(monkeypatch):
    """The kept conversions, empty for the test (the class's own dict is left as it was)."""
    kept = {}
    monkeypatch.setattr(ConversionKeepingCursor, "conversions", kept)
    return kept


def run(sql, params):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def test_the_sites_connections_use_the_backends_cursors():
    with connection.cursor() as cursor:
        assert isinstance(cursor, DirectCursorWrapper)
        assert isinstance(cursor.cursor, ConversionKeepingCursor)


def test_the_fetches_answer_as_the_drivers():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4")
        assert cursor.fetchone() == (1,)
        assert cursor.fetchmany() == [(2,)]  # the driver's arraysize, 1
        assert cursor.fetchmany(size=1) == [(3,)]
        assert cursor.fetchall() == [(4,)]
        assert cursor.fetchone() is None


@pytest.mark.parametrize("fetch", ["fetchone", "fetchmany", "fetchall"])
def test_an_error_while_fetching_is_djangos(fetch):
    connection.ensure_connection()
    connection.connection.create_function("fails_on_two", 1, lambda number: 1 / (2 - number))
    with connection.cursor() as cursor:
        cursor.execute("SELECT fails_on_two(1) UNION ALL SELECT fails_on_two(2)")
        with pytest.raises(OperationalError) as raised:
            getattr(cursor, fetch)(*([2] if fetch == "fetchmany" else []))
    assert isinstance(raised.value.__cause__, sqlite3.OperationalError)


def test_a_cursor_is_closed_when_its_block_ends():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    with pytest.raises(sqlite3.ProgrammingError, match="closed cursor"):
        cursor.cursor.fetchone()


def test_a_positional_statement_answers_the_same_when_its_conversion_is_kept(conversions):
    sql = "SELECT %s || '%%s', %s || '%%'"
    assert run(sql, ["a", "b"]) == [("a%s", "b%")]
    assert conversions == {(sql, None): "SELECT ? || '%s', ? || '%'"}
    assert run(sql, ["c", "d"]) == [("c%s", "d%")]


def test_a_named_statement_answers_the_same_when_its_conversion_is_kept(conversions):
    sql = "SELECT %(first)s, %(second)s || '%%'"
    assert run(sql, {"first": 1, "second": "x"}) == [(1, "x%")]
    assert run(sql, {"second": "y", "first": 2}) == [(2, "y%")]
    assert conversions == {(sql, ("first", "second")): "SELECT :first, :second || '%'",
                           (sql, ("second", "first")): "SELECT :first, :second || '%'"}


def test_the_same_text_bound_by_position_and_by_name_keeps_two_conversions(conversions):
    assert run("SELECT '%%'", []) == [("%",)]
    assert run("SELECT '%%'", {}) == [("%",)]
    assert set(conversions) == {("SELECT '%%'", None), ("SELECT '%%'", ())}


def test_a_statement_longer_than_the_kept_length_is_converted_each_time(conversions):
    long_sql = "SELECT %s" + " " * KEPT_STATEMENT_LENGTH
    assert run(long_sql, [1]) == [(1,)]
    assert conversions == {}


def test_no_more_conversions_are_kept_than_the_limit(conversions):
    for number in range(KEPT_CONVERSIONS + 1):
        assert run(f"SELECT %s + {number}", [1]) == [(number + 1,)]
    assert 1 <= len(conversions) <= KEPT_CONVERSIONS
    assert (f"SELECT %s + {KEPT_CONVERSIONS}", None) in conversions
