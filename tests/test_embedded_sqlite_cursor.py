"""The embedded SQLite backend's cursors keep the statements they converted to the sqlite3
module's placeholders (acme/embedded/sqlite/base.py): a kept conversion answers as Django's own."""
import pytest
from django.db import connection

from acme.embedded.sqlite.base import KEPT_CONVERSIONS, KEPT_STATEMENT_LENGTH, ConversionKeepingCursor

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


def test_the_sites_connections_use_the_cursor_that_keeps_conversions():
    with connection.cursor() as cursor:
        assert isinstance(cursor.cursor, ConversionKeepingCursor)


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
