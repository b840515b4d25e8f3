"""Django's SQLite backend, with write transactions queued on acme.embedded.write_lock, and
connections that cannot write to the database file replaced.

The embedded default's ENGINE (acme/settings.py). Every transaction Django opens (atomic,
BEGIN IMMEDIATE) first takes the write lock of the database file and gives it back when
the transaction commits, rolls back or the connection closes. Statements outside a
transaction and in-memory databases are left to SQLite alone.

Django keeps a connection for CONN_MAX_AGE seconds and asks `is_usable()` before a request
uses it and after one that failed; Django's SQLite answer is always yes. Here it is no for
- a connection SQLite refused a write on as read-only ("attempt to write a readonly
  database"): SQLite opens a file it may not write read-only and keeps it so, even once the
  file is writable again;
- a connection whose file was deleted or replaced since it opened it: its writes would go to
  the old file and be lost.
Django then closes it, and the next request opens the file at its path anew.

Its cursors convert each statement's placeholders for the sqlite3 module once, not at every run
(`ConversionKeepingCursor`), and fetch and close through methods of their own (`DirectCursorWrapper`).
"""
import os
import sqlite3

from django.db import OperationalError
from django.db.backends import utils
from django.db.backends.sqlite3 import base
from django.db.utils import DatabaseErrorWrapper
from django.utils.functional import cached_property

from acme.embedded.write_lock import WriteLock, WriteLockTimeout

DEFAULT_TIMEOUT_SECONDS = 5  # sqlite3.connect()'s default busy timeout


class DatabaseWrapper(base.DatabaseWrapper):
    opened_file = None  # (path, its (device, inode)) of the file the connection opened; None in memory or for a file: URI
    refused_write = False  # SQLite answered a write "readonly" on this connection

    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        name = str(conn_params["database"])
        in_memory = name == ":memory:" or "mode=memory" in name
        timeout = conn_params.get("timeout", DEFAULT_TIMEOUT_SECONDS)
        self.write_lock = None if in_memory else WriteLock(f"{name}.write-lock", timeout)
        self.opened_file = None if in_memory or name.startswith("file:") else (name, file_identity(name))
        self.refused_write = False
        return connection

    def create_cursor(self, name=None):
        return self.connection.cursor(factory=ConversionKeepingCursor)

    def make_cursor(self, cursor):
        return DirectCursorWrapper(cursor, self)

    def is_usable(self):
        if self.refused_write:
            return False
        if self.opened_file is None:
            return True
        path, identity = self.opened_file
        return file_identity(path) == identity

    @cached_property
    def wrap_database_errors(self):
        return ReadOnlyRefusalWatch(self)

    def _start_transaction_under_autocommit(self):
        if self.write_lock is not None:
            try:
                self.write_lock.acquire()
            except WriteLockTimeout as timeout:
                raise OperationalError("database is locked") from timeout
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._release_write_lock()
            raise

    def _commit(self):
        try:
            super()._commit()
        finally:
            self._release_write_lock()

    def _rollback(self):
        try:
            super()._rollback()
        finally:
            self._release_write_lock()

    def _close(self):
        try:
            super()._close()
        finally:
            if getattr(self, "write_lock", None) is not None:
                self.write_lock.close()

    def _release_write_lock(self):
        if getattr(self, "write_lock", None) is not None:
            self.write_lock.release()


class DirectCursorWrapper(utils.CursorWrapper):
    """Django's cursor wrapper, with the fetches and the close that follow nearly every statement
    as methods: Django's reaches them through __getattr__, and wraps each fetch in a new function
    that translates the driver's errors (about 1 µs a statement). These translate them the same way."""

    def fetchone(self):
        with self.db.wrap_database_errors:
            return self.cursor.fetchone()

    def fetchmany(self, *args, **kwargs):
        with self.db.wrap_database_errors:
            return self.cursor.fetchmany(*args, **kwargs)

    def fetchall(self):
        with self.db.wrap_database_errors:
            return self.cursor.fetchall()

    def __exit__(self, type, value, traceback):
        try:
            self.cursor.close()
        except self.db.Database.Error:
            pass  # as Django's: an error in cleanup is no use to the caller


class ConversionKeepingCursor(base.SQLiteCursorWrapper):
    """Django's SQLite cursor, keeping the statements it converted to the sqlite3 module's placeholders.

    Django converts every statement it runs ("%s" to "?" with a regular expression over the whole
    text, "%(name)s" to ":name" with a %-formatting); the site runs the same few texts call after
    call. Kept: statements up to KEPT_STATEMENT_LENGTH characters (bulk inserts are longer), at
    most KEPT_CONVERSIONS of them, all forgotten when that many are kept.
    """

    conversions = {}  # (statement, its parameter names or None): the statement converted; shared by every cursor

    def convert_query(self, query, *, param_names=None):
        key = (query, None if param_names is None else tuple(param_names))
        converted = self.conversions.get(key)
        if converted is None:
            converted = super().convert_query(query, param_names=param_names)
            if len(query) <= KEPT_STATEMENT_LENGTH:
                if len(self.conversions) >= KEPT_CONVERSIONS:
                    self.conversions.clear()
                self.conversions[key] = converted
        return converted


KEPT_STATEMENT_LENGTH = 4096
KEPT_CONVERSIONS = 512


class ReadOnlyRefusalWatch(DatabaseErrorWrapper):
    """Django's translation of the driver's errors, noting a write refused as read-only."""

    def __exit__(self, exc_type, exc_value, traceback):
        if exc_type is None:  # every statement's usual way out: Django's __exit__ does nothing then either
            return None
        if issubclass(exc_type, sqlite3.Error) and is_read_only_refusal(exc_value):
            self.wrapper.refused_write = True
        return super().__exit__(exc_type, exc_value, traceback)


def is_read_only_refusal(error):
    return (getattr(error, "sqlite_errorcode", 0) & 0xFF) == sqlite3.SQLITE_READONLY


def file_identity(path):
    """(device, inode) of the file at `path`, or None if there is none."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino
