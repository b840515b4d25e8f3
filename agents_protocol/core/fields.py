"""Model fields of the app's own."""
from django.db import models


class RowIdField(models.BigAutoField):
    """A BigAutoField that SQLite numbers as a plain rowid, without AUTOINCREMENT.

    AUTOINCREMENT only promises that the id of a deleted last row is never handed out again,
    which no reader of audit events relies on (they are ordered by session and seq), and it
    rewrites the sqlite_sequence table in every insert: about 23 µs of each audit append,
    spent holding SQLite's one write lock (docs/performance.md). Other databases number the
    column exactly as BigAutoField does.
    """

    def db_type_suffix(self, connection):
        if connection.vendor == "sqlite":
            return None
        return super().db_type_suffix(connection)
