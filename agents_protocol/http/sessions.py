"""Agent sessions: created with a hard deadline, found by the hash of their bearer token.

Each session also gets an inspector secret, another 32 random bytes kept as their SHA-256 like
the token: its inspect_url (INSPECTOR_PATH + secret) shows the session to a human (inspector/)
and grants nothing else.
"""
import functools
import hashlib
import hmac
import math
import secrets
import zoneinfo
from datetime import UTC, timedelta

from django.conf import settings
from django.core.signals import setting_changed
from django.db import DEFAULT_DB_ALIAS, connection, connections, models, transaction
from django.db.models.functions import Coalesce
from django.utils import timezone

from agents_protocol.audit.chain import close_and_seal
from agents_protocol.core import sandbox
from agents_protocol.core.conf import app_settings
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.models import AgentSession
from agents_protocol.core.networks import address_network
from agents_protocol.core.reserved import INSPECTOR_PATH

# Every call with a token reads its session: fixed SQL on Django's cursor, made an instance by
# Model.from_db(), costs a tenth of building the ORM query (docs/performance.md). Its placeholder
# is named: Django's SQLite cursor substitutes that with one %-formatting, a %s with a regular
# expression over the whole statement.
SESSION_FIELDS = AgentSession._meta.concrete_fields
SESSION_ATTNAMES = [field.attname for field in SESSION_FIELDS]
SESSION_BY_TOKEN_HASH = (f"SELECT {', '.join(field.column for field in SESSION_FIELDS)}"
                         f" FROM {AgentSession._meta.db_table} WHERE token_hash = %(hash)s")
TOUCH_EVERY = timedelta(seconds=60)


def hash_token(raw_token):
    return hashlib.sha256(raw_token.encode()).hexdigest()


def create_session(client_address, ttl_seconds, max_sessions, audited=False, **agent):
    """A new session and its raw token (shown once, stored only as a hash).

    Once the address (an IPv6 one: its /64, as the rate limit counts it) holds `max_sessions` live
    sessions, the one idle longest ends to make room, if it has made no call for
    SESSION_IDLE_SECONDS; else 429, with Retry-After saying when one will have idled that long or
    expired. The sandbox may shorten `ttl_seconds` (core/sandbox.py).
    """
    ttl_seconds = sandbox.session_ttl(agent.get("agent_name", ""), ttl_seconds)
    now = timezone.now()
    network = address_network(client_address)
    with transaction.atomic():
        _serialize_creates_of(network)
        live = AgentSession.objects.filter(client_network=network, ended_at__isnull=True, expires_at__gt=now)
        if live.count() >= max_sessions:
            _end_the_longest_idle(live, max_sessions, now)
        raw_token, inspect_secret = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        session = AgentSession.objects.create(
            public_id=f"ses_{secrets.token_urlsafe(12)}",
            token_hash=hash_token(raw_token),
            inspect_hash=hash_token(inspect_secret),
            client_address=client_address,
            client_network=network,
            created_at=now,
            last_call_at=now,
            expires_at=now + timedelta(seconds=ttl_seconds),
            audited=audited,
            **agent,
        )
    session.inspect_secret = inspect_secret  # shown once, in inspect_url(); never stored
    return session, raw_token


def inspect_url(origin, session):
    """The absolute URL of a session just created by create_session() on its inspector page."""
    return f"{origin}{INSPECTOR_PATH}{session.inspect_secret}"


def session_for_inspector(secret):
    """The session whose inspector secret is `secret`, or None."""
    wanted = hash_token(secret)
    session = AgentSession.objects.filter(inspect_hash=wanted).first()
    if session is None or not hmac.compare_digest(session.inspect_hash, wanted):
        return None
    return session


def _serialize_creates_of(network):
    """Make parallel creates of one address (network) count and insert one after the other.

    SQLite runs one write transaction at a time already (transaction_mode IMMEDIATE). On
    PostgreSQL two creates could both count max_sessions - 1 live sessions and both insert:
    a transaction-scoped advisory lock on the address queues them.
    """
    if connection.vendor != "postgresql":
        return
    digest = hashlib.sha256(f"agents_protocol.sessions:{network}".encode()).digest()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(digest[:8], "big", signed=True)])


def _end_the_longest_idle(live, max_sessions, now):
    """End the live session idle longest if it has been idle SESSION_IDLE_SECONDS; else refuse with 429."""
    idle_seconds = app_settings.SESSION_IDLE_SECONDS
    by_idleness = live.annotate(idle_since=Coalesce("last_call_at", "created_at")).order_by("idle_since", "pk")
    longest_idle = by_idleness.first()
    if longest_idle.idle_since <= now - timedelta(seconds=idle_seconds):
        end_session(longest_idle, "idle", ended_at=now)
        return
    first_expiry = live.order_by("expires_at").values_list("expires_at", flat=True).first()
    first_free = min(first_expiry, longest_idle.idle_since + timedelta(seconds=idle_seconds))
    retry_after = max(1, math.ceil((first_free - now).total_seconds()))
    raise CapabilityError(
        429, "too_many_sessions",
        f"This address already has {max_sessions} live session{'s' if max_sessions != 1 else ''}, the most it may "
        f"have, and none has been idle for {idle_seconds} seconds; end one with DELETE on the session endpoint, "
        f"or retry in {retry_after} seconds, when one will have been idle that long or expire.",
        headers={"Retry-After": str(retry_after)},
    )


def _touch(session, now):
    """Note that the session made a call (to the minute: one write a minute at most)."""
    if session.last_call_at is None or now - session.last_call_at >= TOUCH_EVERY:
        AgentSession.objects.filter(pk=session.pk).update(last_call_at=now)
        session.last_call_at = now


def how_to_authenticate(create_endpoint):
    return f"Create a new session with POST {create_endpoint} and send its token as Authorization: Bearer <token>."


def malformed_authorization(create_endpoint):
    """The 401 for an Authorization header that is not `Bearer <token>` (e.g. the bare token)."""
    return _unauthorized("session_invalid", "The Authorization header must be the word Bearer, a space and the "
                                            f"session token. {how_to_authenticate(create_endpoint)}")


def authenticate(raw_token, create_endpoint):
    """The live session for a raw token, or a 401 CapabilityError telling the agent what to do."""
    how_to = how_to_authenticate(create_endpoint)
    if not raw_token:
        raise _unauthorized("session_required", f"This capability needs a session. {how_to}")
    session = session_by_token_hash(hash_token(raw_token))
    if session is None:
        raise _unauthorized("session_invalid", f"The session token is not valid. {how_to}")
    now = timezone.now()
    if session.ended_at is None and session.expires_at <= now:
        end_session(session, "expired", ended_at=session.expires_at)
    if session.ended_at is not None:
        code = "session_expired" if session.end_reason == "expired" else "session_ended"
        raise _unauthorized(code, f"This session has {'expired' if code == 'session_expired' else 'ended'}. {how_to}")
    _touch(session, now)
    return session


def session_by_token_hash(token_hash):
    """The session whose token hashes to `token_hash`, or None."""
    # connections[…]: the `connection` proxy adds a lookup of its own to every attribute read.
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(SESSION_BY_TOKEN_HASH, {"hash": token_hash})
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    for index, load in SESSION_LOADERS:
        if values[index] is not None:
            values[index] = load(values[index])
    return AgentSession.from_db(DEFAULT_DB_ALIAS, SESSION_ATTNAMES, values)


def loader(field):
    """How a column's value (not None) is loaded into `field` as the ORM loads it (from_db() takes
    values as loaded): a function, or None for the value as it is."""
    if isinstance(field, models.DateTimeField):
        return aware
    if isinstance(field, models.BooleanField):
        return bool  # SQLite gives 0 or 1
    if hasattr(field, "from_db_value"):  # JSONField: the cursor gives its text
        return lambda value: field.from_db_value(value, None, connection)
    return None


def aware(value):
    """A datetime as the ORM loads it: with USE_TZ, a database without time zones (SQLite) gives
    it back naive, in the database's TIME_ZONE setting (UTC without one), as Django documents."""
    zone = naive_datetimes_zone()
    if zone is not None and value.tzinfo is None:
        return value.replace(tzinfo=zone)  # timezone.make_aware's, unchecked
    return value


@functools.cache
def naive_datetimes_zone():
    """The zone of the naive datetimes the database gives, or None without USE_TZ (they stay naive).
    Kept: every authenticated call loads several; forgotten when a test changes the settings."""
    if not settings.USE_TZ:
        return None
    zone = settings.DATABASES[DEFAULT_DB_ALIAS].get("TIME_ZONE")
    return zoneinfo.ZoneInfo(zone) if zone else UTC


def _forget_naive_datetimes_zone(*, setting, **kwargs):
    if setting in {"USE_TZ", "DATABASES"}:
        naive_datetimes_zone.cache_clear()


setting_changed.connect(_forget_naive_datetimes_zone)

# (column index, loader) of the columns that have one: chosen once, every authenticated call loads a session.
SESSION_LOADERS = tuple((index, load) for index, load in enumerate(map(loader, SESSION_FIELDS)) if load is not None)


def _unauthorized(code, message):
    return CapabilityError(401, code, message, headers={"WWW-Authenticate": 'Bearer realm="agents"'})


def end_session(session, reason, ended_at=None, *, method="", path="", response_status=200):
    """End a live session (a session already ended keeps its first reason) and seal its audit trail;
    session.end records `response_status`, the status the ending request is answered with."""
    close_and_seal(session, reason, ended_at or timezone.now(), method=method, path=path,
                   response_status=response_status)
    return session
