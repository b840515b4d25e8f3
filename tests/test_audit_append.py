"""The append's two statements run on the backend's own cursor: what Django's cursor gave stays true.

The event and the head land as the ORM would write and read them, a database error is Django's
and undoes the whole append, and while Django captures queries it sees both statements.
"""
import pytest
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agents_protocol.audit import chain, verify
from agents_protocol.audit.chain import PendingEvent, record_event
from agents_protocol.audit.hashing import event_hash
from agents_protocol.audit.keys import public_key_b64
from agents_protocol.audit.signing import signing_key
from agents_protocol.core.reserved import SESSION_CREATE
from agents_protocol.models import AgentSession, AuditEvent
from tests.factories import make_agent_session

pytestmark = pytest.mark.django_db(transaction=True)

PARAMS = {"item_id": "mug-1", "quantity": 2, "note": "bleu \u2028 \U0001f3fa", "tags": ["a", None, True]}


def record(session, **params):
    return record_event(session, capability="cart.add", method="POST", path="/api/cart/add",
                        params=params, response_status=200, policy_result="allow", hint="a hint")


def test_the_appended_event_reads_back_through_the_orm_as_it_was_hashed():
    session = make_agent_session(audited=True)
    first, second = record(session, **PARAMS), record(session, item_id="mug-2")
    stored = list(AuditEvent.objects.filter(session=session).order_by("seq").values())
    assert [row["seq"] for row in stored] == [1, 2]
    assert stored[0]["params"] == PARAMS and stored[0]["hint"] == "a hint"
    for row, event in zip(stored, (first, second)):
        assert row["event_hash"] == event["event_hash"] == event_hash(row)
    assert stored[1]["prev_hash"] == first["event_hash"]
    head = AgentSession.objects.values_list("event_count", "last_event_hash").get(pk=session.pk)
    assert head == (2, second["event_hash"])


def test_a_failed_insert_is_djangos_integrity_error_and_leaves_the_head_where_it_was():
    session = make_agent_session(audited=True)
    record(session, item_id="mug-1")
    # A row already holding seq 2 (what no append makes): the head moves, the INSERT then fails.
    squatter = PendingEvent(session, capability="x", method="GET", path="/", params={}, response_status=200,
                            policy_result="allow").event
    AuditEvent.objects.create(session=session, **squatter)
    with pytest.raises(IntegrityError):
        record(session, item_id="mug-2")
    assert AgentSession.objects.values_list("event_count", flat=True).get(pk=session.pk) == 1
    assert AuditEvent.objects.filter(session=session).count() == 2
    AuditEvent.objects.filter(session=session, seq=2).delete()
    assert record(session, item_id="mug-3")["seq"] == 2  # the connection and the chain go on


def test_an_append_that_finds_the_head_moved_extends_the_new_head():
    session = make_agent_session(audited=True)
    stale = AgentSession.objects.get(pk=session.pk)
    pending = PendingEvent(stale, capability="cart.view", method="GET", path="/api/cart", params={},
                           response_status=200, policy_result="allow")
    moved = record(session, item_id="mug-1")
    appended = pending.append()
    assert appended["seq"] == 2 and appended["prev_hash"] == moved["event_hash"]
    assert list(AuditEvent.objects.filter(session=session).order_by("seq").values_list("seq", flat=True)) == [1, 2]


def test_nothing_is_appended_once_the_session_ended():
    session = make_agent_session(audited=True)
    stale = AgentSession.objects.get(pk=session.pk)
    AgentSession.objects.filter(pk=session.pk).update(ended_at=session.created_at)
    assert record(stale, item_id="mug-1") is None
    assert not AuditEvent.objects.filter(session=session).exists()


def test_captured_queries_see_both_statements_of_the_append():
    session = make_agent_session(audited=True)
    with CaptureQueriesContext(connection) as captured:
        record(session, item_id="mug-1")
    statements = [query["sql"].split()[0] for query in captured.captured_queries]
    assert statements.count("UPDATE") == 1 and statements.count("INSERT") == 1


@pytest.mark.usefixtures("key_file")
def test_an_event_made_where_the_clock_is_behind_keeps_the_chain_in_time_and_the_seal_verifies(monkeypatch):
    """Calls of one session may reach hosts whose clocks differ: an event is never stamped before
    the head it extends, whether the session was read before the head moved or after."""
    session = make_agent_session(audited=True)
    first = record_event(session, capability=SESSION_CREATE, method="POST", path="/api/session", params={},
                         response_status=201, policy_result="allow")
    monkeypatch.setattr(chain, "timestamp_now", lambda: "2001-01-01T00:00:00.000000Z")  # a host far behind
    second = record(session, item_id="mug-2")
    read_elsewhere = AgentSession.objects.get(pk=session.pk)
    third = record(read_elsewhere, item_id="mug-3")
    assert first["timestamp"] == second["timestamp"] == third["timestamp"] > "2001"

    body = chain.close_and_seal(read_elsewhere, "deleted", timezone.now())
    assert [event["timestamp"] for event in body["events"]][-1] == first["timestamp"]
    assert verify(body, public_key_b64(signing_key().verify_key)).ok
