"""Django's SQLite backend, with write transactions queued on acme.embedded.write_lock.

The embedded default's ENGINE (acme/settings.py). Every transaction Django opens (atomic,
BEGIN IMMEDIATE) first takes the write lock of the database file and gives it back when
the transaction commits, rolls back or the connection closes. Statements outside a
transaction and in-memory databases are left to SQLite alone.
"""
from django.db import OperationalError
from django.db.backends.sqlite3 import base

from acme.embedded.write_lock import WriteLock, WriteLockTimeout

DEFAULT_TIMEOUT_SECONDS = 5  # sqlite3.connect()'s default busy timeout


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        name = str(conn_params["database"])
        in_memory = name == ":memory:" or "mode=memory" in name
        timeout = conn_params.get("timeout", DEFAULT_TIMEOUT_SECONDS)
        self.write_lock = None if in_memory else WriteLock(f"{name}.write-lock", timeout)
        return connection

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
