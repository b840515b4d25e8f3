"""Appending to a session's chain and sealing it into a signed artifact.

Each append moves the session row's chain head (`event_count`, `last_event_hash`) from the
head its event extends to the event itself, in one conditional UPDATE (compare and swap), and
inserts the event in the same transaction. An append that finds the head moved (another call
of the same session appended first) reads the head again and makes its event anew, so
sequence numbers have no gaps and the chain never forks, across threads, processes and hosts.
Once a session has ended nothing more is appended.

Every call of an audited session appends, and SQLite has one writer for the whole database:
the event and its RFC 8785 hash are made before the write transaction, from the head the
session row showed when the call authenticated, so the transaction holds two fixed SQL
statements on one cursor and no hashing. A call that changes something appends inside the
transaction of its change when the handler asks for it (`PendingEvent.append`, reached through
`CallContext.record_change`): the change and its record then commit together or not at all.
"""
import secrets
import time
from datetime import datetime, timezone

from django.db import connection, transaction
from django.db.models import F

from agents_protocol.audit import policy
from agents_protocol.audit.hashing import (
    ALGORITHM,
    CANONICALIZATION,
    FORMAT,
    event_hash,
    root_hash,
)
from agents_protocol.audit.keys import key_id, public_key_b64, sign_b64
from agents_protocol.audit.redaction import redact
from agents_protocol.audit.signing import current_key_record, signing_key
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.formats import iso_utc
from agents_protocol.core.models import (
    AgentSession,
    AuditArtifact,
    AuditEvent,
    SiteProfile,
)
from agents_protocol.core.reserved import SESSION_END


def timestamp_now():
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def record_event(session, *, capability, method, path, params, response_status, policy_result, hint=""):
    """Append one event to a live audited session's chain; returns it, or None if the session ended.

    `session.event_count` and `session.last_event_hash` are the head as last read; they follow
    the append. `hint`, what a refused call was told, is kept beside the event, outside its hash.
    """
    return PendingEvent(session, capability=capability, method=method, path=path, params=params,
                        response_status=response_status, policy_result=policy_result, hint=hint).append()


class PendingEvent:
    """One call's event, made and hashed now from the session's head as last read, appended later.

    `append()` appends it inside the transaction that is open, if any (so it commits with the
    change made there, or not at all), else in a transaction of its own. `appended` says it
    was tried; `settled` turns True when the transaction that appended it commits (with the
    event, or finding the session ended).
    """

    def __init__(self, session, *, capability, method, path, params, response_status, policy_result, hint=""):
        self.session = session
        self.hint = hint
        self.fields = {"capability": capability, "method": method, "path": path, "params": redact(params),
                       "response_status": response_status, "policy_result": policy_result}
        self.event = self._make() if session.audited else None
        self.appended = False
        self.settled = False

    def append(self):
        """The appended event, or None (a session without audit, or ended)."""
        if not self.session.audited:
            return None
        self.appended = True
        with transaction.atomic(savepoint=False):
            event = self._move_head_and_insert()
            transaction.on_commit(self._settle)
        return event

    def append_with_change(self):
        """append(), called in the transaction of the call's change: a session that ended since the
        call authenticated refuses the change (the 401 rolls it back), so no change commits
        without its event in the trail that was sealed."""
        if self.append() is None and self.session.audited:
            raise CapabilityError(401, "session_ended", "This session ended during the call; nothing was changed. "
                                  "Start a new session.", headers={"WWW-Authenticate": 'Bearer realm="agents"'})

    def _move_head_and_insert(self):
        with connection.cursor() as cursor:
            while True:
                event = self.event
                cursor.execute(MOVE_LIVE_HEAD, {"seq": event["seq"], "hash": event["event_hash"],
                                                "at": event["timestamp"], "id": self.session.pk,
                                                "previous": event["seq"] - 1})
                if cursor.rowcount == 1:
                    insert_event(cursor, connection, self.session.pk, event, self.hint)
                    session = self.session
                    session.event_count, session.last_event_hash = event["seq"], event["event_hash"]
                    session.last_event_at = event["timestamp"]
                    return event
                cursor.execute(LIVE_HEAD, {"id": self.session.pk})
                head = cursor.fetchone()
                if head is None:
                    return None
                self.session.event_count, self.session.last_event_hash, self.session.last_event_at = head
                self.event = self._make()

    def _make(self):
        session = self.session
        return _event(session.event_count + 1, session.last_event_hash, **self.fields, not_before=session.last_event_at)

    def _settle(self):
        self.settled = True


# Named placeholders, bound from a dict: Django's SQLite cursor substitutes them with one
# %-formatting, where %s placeholders cost a regular expression over the whole statement.
MOVE_LIVE_HEAD = (
    "UPDATE agents_protocol_agentsession SET event_count = %(seq)s, last_event_hash = %(hash)s,"
    " last_event_at = %(at)s WHERE id = %(id)s AND event_count = %(previous)s AND ended_at IS NULL"
)
LIVE_HEAD = ("SELECT event_count, last_event_hash, last_event_at FROM agents_protocol_agentsession"
             " WHERE id = %(id)s AND ended_at IS NULL")
STORE_HEAD_HASH = "UPDATE agents_protocol_agentsession SET last_event_hash = %s WHERE id = %s"
INSERT_EVENT = (
    'INSERT INTO agents_protocol_auditevent (session_id, seq, event_id, "timestamp", capability, method, path, params,'
    " response_status, policy_result, prev_hash, event_hash, hint) VALUES (%(session_id)s, %(seq)s, %(event_id)s,"
    " %(timestamp)s, %(capability)s, %(method)s, %(path)s, %(params)s, %(response_status)s, %(policy_result)s,"
    " %(prev_hash)s, %(event_hash)s, %(hint)s)"
)
PARAMS_FIELD = AuditEvent._meta.get_field("params")
MAX_EVENT_PATH = AuditEvent._meta.get_field("path").max_length


def insert_event(cursor, connection, session_id, event, hint=""):
    """INSERT the event, its values prepared as the ORM prepares them (only `params` needs it)."""
    cursor.execute(INSERT_EVENT, {
        **event, "session_id": session_id, "params": PARAMS_FIELD.get_db_prep_save(event["params"], connection),
        "hint": hint,
    })


def new_event_id():
    """`evt_` and 24 hex digits: the microsecond it was made, then 44 random bits.

    Ids made one after another sort together, so each insert extends the unique index's last
    page instead of dirtying a random one of thousands (about 17 µs of every append).
    """
    return f"evt_{time.time_ns() // 1000:013x}{secrets.randbits(44):011x}"


def _event(seq, prev_hash, capability, method, path, params, response_status, policy_result, not_before=""):
    """The event that follows `prev_hash` as number `seq`, with its hash; `params` already redacted.

    Its time is now, or the previous event's (`not_before`) if that is later: in one chain time
    never goes back, though its calls may reach hosts whose clocks differ a little. A path longer
    than the column holds (a refused call's, up to MAX_URL_BYTES) is kept to its first
    MAX_EVENT_PATH characters, and a NUL in it is written %00 as it was sent: PostgreSQL would
    refuse the row, and the event with it.
    """
    event = {
        "seq": seq,
        "event_id": new_event_id(),
        "timestamp": max(timestamp_now(), not_before),
        "capability": capability,
        "method": method,
        "path": path.replace("\x00", "%00")[:MAX_EVENT_PATH],
        "params": params,
        "response_status": response_status,
        "policy_result": policy_result,
        "prev_hash": prev_hash,
    }
    event["event_hash"] = event_hash(event)
    return event


def close_and_seal(session, reason, ended_at, *, method="", path="", response_status=200):
    """End the session (if still live), append session.end and store the signed artifact.

    Returns the artifact body (or None for a session created without audit). Safe to
    call twice or concurrently: the first caller ends and seals, the others read.
    """
    with transaction.atomic():
        ended = AgentSession.objects.filter(pk=session.pk, ended_at__isnull=True).update(
            ended_at=ended_at, end_reason=reason, event_count=F("event_count") + 1
        )
        session.refresh_from_db(fields=["ended_at", "end_reason"])
        if not session.audited:
            return None
        if ended:
            seq, prev_hash, not_before = AgentSession.objects.values_list(
                "event_count", "last_event_hash", "last_event_at").get(pk=session.pk)
            event = _event(seq, prev_hash, SESSION_END, method, path, redact({"reason": reason}), response_status,
                           policy.ended(reason), not_before=not_before)
            with connection.cursor() as cursor:
                insert_event(cursor, connection, session.pk, event)
                cursor.execute(STORE_HEAD_HASH, [event["event_hash"], session.pk])
            return _seal(session).body
    return sealed_artifact(session)


def sealed_artifact(session):
    artifact = AuditArtifact.objects.filter(session=session).first()
    return artifact.body if artifact else None


def site_of(events):
    """The site's URL the chain opened on (its session.create event records it), else the
    configured URL, else the site's name (trails opened before the URL was recorded)."""
    opening = events[0]["params"] if events else None
    if isinstance(opening, dict) and isinstance(opening.get("site"), str):
        return opening["site"]
    profile = SiteProfile.load()
    return profile.url or profile.name


def _seal(session):
    events = list(AuditEvent.objects.filter(session=session).order_by("seq").values(
        "seq", "event_id", "timestamp", "capability", "method", "path",
        "params", "response_status", "policy_result", "prev_hash", "event_hash",
    ))
    key = signing_key()
    current_key_record()
    root = root_hash([e["event_hash"] for e in events])
    body = {
        "format": FORMAT,
        "session_id": session.public_id,
        "site": site_of(events),
        "created_at": iso_utc(session.created_at),
        "ended_at": iso_utc(session.ended_at),
        "end_reason": session.end_reason,
        "events": events,
        "root_hash": root,
        "algorithm": ALGORITHM,
        "canonicalization": CANONICALIZATION,
        "key_id": key_id(key.verify_key),
        "public_key": public_key_b64(key.verify_key),
        "signature": sign_b64(key, root),
    }
    return AuditArtifact.objects.create(session=session, body=body, sealed_at=session.ended_at)
