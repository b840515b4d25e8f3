"""The audit table stays lean: every call of an audited session inserts a row into it, while
holding SQLite's one write lock (docs/performance.md, "What was done")."""
import re

import pytest
from django.db import connection

from agents_protocol.audit.chain import record_event
from agents_protocol.models import AuditEvent
from tests.factories import make_agent_session

pytestmark = pytest.mark.django_db


def append(session):
    record_event(session, capability="cart.add", method="POST", path="/x", params={},
                 response_status=200, policy_result="allow")


def test_event_ids_sort_in_the_order_the_events_were_made():
    sessions = [make_agent_session(audited=True) for _ in range(3)]
    for _ in range(10):
        for session in sessions:
            append(session)
    ids = list(AuditEvent.objects.order_by("id").values_list("event_id", flat=True))
    assert len(ids) == 30 == len(set(ids))
    assert all(re.fullmatch(r"evt_[0-9a-f]{24}", event_id) for event_id in ids), ids
    assert ids == sorted(ids)


def test_the_only_indexes_are_the_ones_reads_and_uniqueness_need():
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, AuditEvent._meta.db_table)
    indexed = sorted(tuple(c["columns"]) for c in constraints.values()
                     if (c["index"] or c["unique"]) and not c["primary_key"])
    assert indexed == [("event_id",), ("session_id", "seq")]


def test_appends_do_not_write_sqlite_sequence():
    append(make_agent_session(audited=True))
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM sqlite_sequence WHERE name = %s", [AuditEvent._meta.db_table])
        assert cursor.fetchone() == (0,)
    assert AuditEvent.objects.get().pk == 1
