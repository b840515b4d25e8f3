"""The configuration as one immutable snapshot, loaded from the database once per revision.

Every worker reads the revision number (one indexed query) and reuses the snapshot it
already built for that number, so an admin save is visible on the very next request in
every process, and nothing else is queried while the configuration is unchanged. With a
REVISION_SIGNAL (core/conf.py) the number is read only when the signal moved, or once a
second (`current_revision`). The API
middleware reads it once per request and pins that snapshot for the rest of the request
(`pinned_config`), so one request never sees two configurations nor reads the number twice.
"""
import contextvars
import logging
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property

from django.core.signals import setting_changed
from django.db import connections, router, transaction
from django.db.models import F
from django.utils.module_loading import import_string

from agents_protocol.core.conf import app_settings
from agents_protocol.core.models import (
    AuditConfig,
    Capability,
    ConfigRevision,
    Flow,
    McpConfig,
    RateLimitConfig,
    SessionConfig,
    SiteProfile,
)
from agents_protocol.core.provider import ProviderNotConfigured, get_provider
from agents_protocol.core.schema import compile_param, plain_number


@dataclass(frozen=True)
class ParamSpec:
    """One parameter and every rule the server enforces on it (see core/schema.py)."""

    name: str
    type: str
    description: str = ""
    required: bool = False
    default: object = None
    enum: tuple | None = None
    items: dict | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    min_length: int | None = None
    max_length: int | None = None
    format: str = ""

    @cached_property
    def rules(self):
        """The compiled checks, JSON Schema and phrase: built once for the life of this snapshot,
        so once per configuration revision in each worker."""
        return compile_param(self)


@dataclass(frozen=True)
class CapabilitySpec:
    name: str
    endpoint: str
    method: str
    description: str = ""
    requires_session: bool = False
    human_handoff: bool = False
    enabled: bool = True
    params: tuple[ParamSpec, ...] = ()
    calls_per_hour: int | None = None  # the capability's own limit, on top of the site's (http/limits.py)


@dataclass(frozen=True)
class FlowSpec:
    name: str
    description: str
    steps: tuple[str, ...]


@dataclass(frozen=True)
class SiteSpec:
    name: str
    url: str
    description: str
    contact: str
    docs_url: str
    agent_notes: str = ""


@dataclass(frozen=True)
class SessionSpec:
    create_endpoint: str
    delete_endpoint: str
    ttl_seconds: int


@dataclass(frozen=True)
class RateLimitSpec:
    requests_per_minute: int
    max_sessions: int


@dataclass(frozen=True)
class AuditSpec:
    enabled: bool
    endpoint: str


@dataclass(frozen=True)
class McpSpec:
    enabled: bool
    endpoint: str


@dataclass(frozen=True, eq=False)
class ProtocolConfig:
    """Compared and hashed by identity: each load is a distinct snapshot, usable as a cache key."""

    revision: int
    site: SiteSpec
    session: SessionSpec
    rate_limit: RateLimitSpec
    audit: AuditSpec
    capabilities: tuple[CapabilitySpec, ...]
    flows: tuple[FlowSpec, ...]
    mcp: McpSpec

    @property
    def enabled_capabilities(self):
        return tuple(c for c in self.capabilities if c.enabled)


# Plain identifiers, the same unquoted in SQLite and PostgreSQL.
REVISION_STATEMENT = (
    f"SELECT number FROM {ConfigRevision._meta.db_table} WHERE {ConfigRevision._meta.pk.column} = 1"
)


logger = logging.getLogger(__name__)

# How long a revision read under an unmoved signal is trusted: the bound on staleness should a
# process die between committing a change and moving the signal.
SIGNAL_TRUST_SECONDS = 1.0


def current_revision():
    """The configuration's revision number (0 before the first save).

    Without a REVISION_SIGNAL every call reads it from the database. With one, the signal is
    read first, and the database only when the signal moved since this process last read the
    number, or that read is SIGNAL_TRUST_SECONDS old. Reading the signal before the number makes
    a change committed in between harmless: the number is kept under the signal's old value,
    which the change moves once it has committed. Inside a transaction the number is always
    read, and not kept: the transaction may see its own change, which may yet roll back. A
    signal that cannot be read (its file refused, say) leaves the row to be read every time.
    """
    return revision_on(connections[router.db_for_read(ConfigRevision)])


def revision_on(connection):
    """current_revision(), on the connection the caller already looked up."""
    global _seen_revision
    signal = revision_signal.get()
    if signal is None or in_transaction(connection):
        return read_revision(connection)
    try:
        moved_to = signal.read()
    except Exception:  # any signal's failure: the row is the truth, the signal only saves reading it
        logger.exception("The configuration's REVISION_SIGNAL could not be read; reading the revision row")
        return read_revision(connection)
    seen_value, seen_revision, trusted_until = _seen_revision  # one tuple: threads replace it whole
    now = time.monotonic()
    if seen_value == moved_to and now < trusted_until:
        return seen_revision
    revision = read_revision(connection)
    _seen_revision = (moved_to, revision, now + SIGNAL_TRUST_SECONDS)
    return revision


NOTHING_SEEN = (None, None, 0.0)
_seen_revision = NOTHING_SEEN  # (signal's value, revision, trusted until): this process's last read


def forget_seen_revision():
    """Read the revision from the database at the next call (a test flushed it, or the signal changed)."""
    global _seen_revision
    _seen_revision = NOTHING_SEEN


def in_transaction(connection):
    """True inside atomic() or a transaction opened by turning autocommit off. (The attribute, not
    get_autocommit(), which would connect first: before the first connection it reads False, so
    the caller reads the row, as it would have to anyway.)"""
    return connection.in_atomic_block or not connection.autocommit


def read_revision(connection):
    """The revision row, read with fixed SQL on Django's cursor: building the same query through
    the ORM costs about ten times what the database spends answering it."""
    with connection.cursor() as cursor:
        cursor.execute(REVISION_STATEMENT)
        row = cursor.fetchone()
    return row[0] if row else 0


def bump_revision():
    """Tell every worker that the configuration changed (signals.py calls it on every save,
    except within `one_revision_bump`).

    The signal moves once the transaction commits (at once without one), so that every
    process reads the new number at its next request. In a transaction opened by turning
    autocommit off, which has no commit hook, it moves at once: a process reading in between
    keeps the old number for at most SIGNAL_TRUST_SECONDS.
    """
    updated = ConfigRevision.objects.filter(pk=1).update(number=F("number") + 1)
    if not updated:
        _, created = ConfigRevision.objects.get_or_create(pk=1, defaults={"number": 1})
        if not created:  # another save created the row meanwhile: this change needs a number of its own
            ConfigRevision.objects.filter(pk=1).update(number=F("number") + 1)
    signal = revision_signal.get()
    if signal is None:
        return
    connection = connections[router.db_for_write(ConfigRevision)]
    if connection.in_atomic_block or connection.autocommit:  # on_commit runs it at once in autocommit
        transaction.on_commit(signal.bump, using=connection.alias, robust=True)
    else:
        signal.bump()


_bumping_once = contextvars.ContextVar("agents_protocol_bumping_once", default=False)


@contextmanager
def one_revision_bump():
    """Change many configuration rows with one revision bump at the end instead of one per row
    (config_io.write_config: a whole file). Admin saves outside it bump one each."""
    token = _bumping_once.set(True)
    try:
        yield
    finally:
        _bumping_once.reset(token)
    bump_revision()


def bumping_once():
    """Whether a row change now waits for the bump at the end of `one_revision_bump`."""
    return _bumping_once.get()


class RevisionSignal:
    """The REVISION_SIGNAL instance, made on first use (again after a settings change), or None."""

    def __init__(self):
        self._instance = self._made = None

    def get(self):
        if not self._made:
            path = app_settings.REVISION_SIGNAL
            self._instance = import_string(path)() if path else None
            self._made = True
        return self._instance

    def reset(self):
        self._instance = self._made = None
        forget_seen_revision()


revision_signal = RevisionSignal()


def _reset_signal(setting, **kwargs):
    if setting == "AGENTS_PROTOCOL":
        revision_signal.reset()


def _forget_snapshot(**kwargs):
    forget_snapshot()  # the provider's max_quantity may follow the setting that changed


setting_changed.connect(_reset_signal)
setting_changed.connect(_forget_snapshot)


def load_config(revision=None, as_declared=False):
    """Build a snapshot from the database (a handful of queries, whatever the size): as published
    and enforced, or `as_declared` in the database, without the provider's max_quantity (what
    staff edit and export)."""
    site = SiteProfile.load()
    session = SessionConfig.load()
    rate_limit = RateLimitConfig.load()
    audit = AuditConfig.load()
    mcp = McpConfig.load()
    capabilities = Capability.objects.prefetch_related("params")
    max_quantity = None if as_declared else shop_max_quantity()
    flows = Flow.objects.prefetch_related("steps__capability")
    return ProtocolConfig(
        revision=current_revision() if revision is None else revision,
        site=SiteSpec(site.name, site.url, site.description, site.contact, site.docs_url, site.agent_notes),
        session=SessionSpec(session.create_endpoint, session.delete_endpoint, session.ttl_seconds),
        rate_limit=RateLimitSpec(rate_limit.requests_per_minute, rate_limit.max_sessions),
        audit=AuditSpec(audit.enabled, audit.endpoint),
        capabilities=tuple(_capability_spec(c, max_quantity) for c in capabilities),
        flows=tuple(
            FlowSpec(f.name, f.description, tuple(s.capability.name for s in f.steps.all()))
            for f in flows
        ),
        mcp=McpSpec(mcp.enabled, mcp.endpoint),
    )


# The parameters that take a quantity of one item, which the shop's max_quantity bounds.
QUANTITY_PARAMS = {("cart.add", "quantity"), ("cart.update", "quantity")}


def shop_max_quantity():
    """The provider's max_quantity, or None (also without a provider: admin works without one)."""
    try:
        return get_provider().max_quantity
    except ProviderNotConfigured:
        return None


def _maximum(capability, param, max_quantity):
    """The declared maximum, or the shop's max_quantity for a quantity when that is lower."""
    declared = plain_number(param.maximum)
    if max_quantity is None or (capability.name, param.name) not in QUANTITY_PARAMS or param.type != "integer":
        return declared
    return max_quantity if declared is None else min(declared, max_quantity)


def _capability_spec(capability, max_quantity=None):
    return CapabilitySpec(
        name=capability.name,
        endpoint=capability.endpoint,
        method=capability.method,
        description=capability.description,
        requires_session=capability.requires_session,
        human_handoff=capability.human_handoff,
        enabled=capability.enabled,
        calls_per_hour=capability.calls_per_hour,
        params=tuple(
            ParamSpec(
                name=p.name,
                type=p.type,
                description=p.description,
                required=p.required,
                default=p.default,
                enum=tuple(p.enum) if p.enum is not None else None,
                items=p.items,
                minimum=plain_number(p.minimum),
                maximum=_maximum(capability, p, max_quantity),
                min_length=p.min_length,
                max_length=p.max_length,
                format=p.format,
            )
            for p in capability.params.all()
        ),
    )


_cache_lock = threading.Lock()
# (the last snapshot built, settled: built outside a transaction, or its transaction committed);
# one tuple, which threads replace whole.
_snapshot = (None, True)
_pinned = contextvars.ContextVar("agents_protocol_pinned_config", default=None)


def current_config():
    """The snapshot pinned for this request, else the one for the current revision
    (rebuilt only when the revision moved).

    A snapshot built inside a transaction may hold that transaction's own change, which may
    yet roll back, and a later committed change would then bring the same revision number
    back: it is reused only inside a transaction until its transaction commits (settles it).
    """
    global _snapshot
    pinned = _pinned.get()
    if pinned is not None:
        return pinned
    connection = connections[router.db_for_read(ConfigRevision)]
    revision = revision_on(connection)
    cached, settled = _snapshot
    if cached is not None and cached.revision == revision and (settled or in_transaction(connection)):
        return cached
    # Read the revision before the rows: a snapshot may be newer than its number,
    # never older, so the next request with the new number rebuilds it.
    config = load_config(revision)
    settled = not in_transaction(connection)
    with _cache_lock:
        _snapshot = (config, settled)
    if not settled and connection.in_atomic_block:
        transaction.on_commit(lambda: _settle(config), using=connection.alias)
    return config


def _settle(config):
    global _snapshot
    with _cache_lock:
        if _snapshot[0] is config:
            _snapshot = (config, True)


def forget_snapshot():
    """Build the snapshot again at the next call (a test flushed the tables)."""
    global _snapshot
    with _cache_lock:
        _snapshot = (None, True)


class pinned_config:
    """`with pinned_config(config):` within the block, current_config() answers `config` without
    reading the revision again. (A class: every agent request enters one, and a generator-based
    context manager costs several times as much.)"""

    def __init__(self, config):
        self.config = config

    def __enter__(self):
        self.token = _pinned.set(self.config)
        return self.config

    def __exit__(self, *exc_info):
        _pinned.reset(self.token)
