"""REVISION_SIGNAL (agents_protocol/core/config.py): with the embedded profile's signal in shared memory
(acme/embedded/stamp.py), a request reads the configuration's revision row only when a committed change
moved the signal, or once a second; inside a transaction it always reads it. Across gunicorn workers the
same freshness is held by tests/test_document_replay.py and tests/test_discovery_workers.py."""
import os
import subprocess
import sys

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from acme.embedded.stamp import SharedMemoryStamp
from agents_protocol.core import config
from agents_protocol.core.config import REVISION_STATEMENT, current_revision, revision_signal
from agents_protocol.models import ConfigRevision, RateLimitConfig

SIGNAL = "acme.embedded.stamp.SharedMemoryStamp"


def revision_reads(action):
    with CaptureQueriesContext(connection) as captured:
        answer = action()
    return answer, sum(query["sql"] == REVISION_STATEMENT for query in captured.captured_queries)


@pytest.fixture
def signalled(settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "REVISION_SIGNAL": SIGNAL}
    assert isinstance(revision_signal.get(), SharedMemoryStamp)


@pytest.fixture
def clock(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(config.time, "monotonic", lambda: now[0])
    return now


def save_a_change(limit):
    row = RateLimitConfig.load()
    row.requests_per_minute = limit
    row.save()  # signals.py bumps the revision; the signal moves when this commits


@pytest.mark.django_db(transaction=True)
def test_the_row_is_read_again_only_after_a_committed_change(signalled, clock):
    first, reads = revision_reads(current_revision)
    assert reads == 1
    assert revision_reads(current_revision) == (first, 0)

    save_a_change(77)
    after, reads = revision_reads(current_revision)
    assert reads == 1 and after == first + 1 == ConfigRevision.objects.get(pk=1).number
    assert revision_reads(current_revision) == (after, 0)
    assert config.current_config().rate_limit.requests_per_minute == 77


@pytest.mark.django_db(transaction=True)
def test_a_change_that_skipped_the_signal_shows_within_a_second(signalled, clock):
    first, _ = revision_reads(current_revision)
    ConfigRevision.objects.filter(pk=1).update(number=first + 10)  # as a process dying before its bump leaves it
    clock[0] += 0.9
    assert revision_reads(current_revision) == (first, 0)
    clock[0] += 0.2
    assert revision_reads(current_revision) == (first + 10, 1)


@pytest.mark.django_db(transaction=True)
def test_a_change_rolled_back_is_never_served(signalled, clock):
    first, _ = revision_reads(current_revision)
    with transaction.atomic():
        save_a_change(55)
        inside, reads = revision_reads(current_revision)
        assert (inside, reads) == (first + 1, 1)  # the transaction sees its own change
        transaction.set_rollback(True)
    assert revision_reads(current_revision) == (first, 0)  # nothing read inside it was kept


@pytest.mark.django_db(transaction=True)
def test_with_autocommit_off_the_row_is_read_and_the_signal_moves_at_once(signalled, clock):
    first, _ = revision_reads(current_revision)
    stamp = revision_signal.get()
    before = stamp.read()
    transaction.set_autocommit(False)
    try:
        save_a_change(44)  # no commit hook outside atomic(): the signal moves now
        assert stamp.read() == before + 1
        assert revision_reads(current_revision) == (first + 1, 1)
        assert revision_reads(current_revision) == (first + 1, 1)  # read again: nothing kept
        transaction.commit()
    finally:
        transaction.set_autocommit(True)
    assert revision_reads(current_revision) == (first + 1, 1)


@pytest.mark.django_db(transaction=True)
def test_another_process_sees_the_committed_change_at_its_next_read(signalled, clock):
    """The signal is a file every process maps: a bump by another process moves this one's read."""
    first, _ = revision_reads(current_revision)
    ConfigRevision.objects.filter(pk=1).update(number=first + 1)
    bump_elsewhere(revision_signal.get().path)
    assert revision_reads(current_revision) == (first + 1, 1)


@pytest.mark.django_db
def test_without_a_signal_every_call_reads_the_row(settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "REVISION_SIGNAL": None}
    assert revision_signal.get() is None
    assert [revision_reads(current_revision)[1] for _ in range(3)] == [1, 1, 1]


def bump_elsewhere(path):
    bumped = subprocess.run([sys.executable, "-c", f"from acme.embedded.stamp import SharedMemoryStamp; "
                             f"SharedMemoryStamp({path!r}).bump()"], capture_output=True, text=True, timeout=60)
    assert bumped.returncode == 0, bumped.stderr


def test_the_stamp_moves_by_one_for_every_bump_in_any_process(tmp_path):
    path = str(tmp_path / "cache" / "configuration.stamp")
    stamp, other = SharedMemoryStamp(path), SharedMemoryStamp(path)
    start = stamp.read()
    other.bump()
    other.bump()
    bump_elsewhere(path)
    assert stamp.read() == start + 3
    assert os.stat(path).st_mode & 0o777 == 0o600


class BrokenSignal:
    def read(self):
        raise OSError("the signal's file was refused")

    def bump(self):
        raise OSError("the signal's file was refused")


@pytest.mark.django_db(transaction=True)
def test_a_signal_that_fails_leaves_every_read_to_the_row(settings, caplog):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "REVISION_SIGNAL": f"{__name__}.BrokenSignal"}
    save_a_change(66)  # its bump fails after the commit (robust on_commit): the change stands
    assert [revision_reads(current_revision)[1] for _ in range(2)] == [1, 1]
    assert config.current_config().rate_limit.requests_per_minute == 66
    assert "REVISION_SIGNAL could not be read" in caplog.text


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("signal", [None, SIGNAL])
def test_a_snapshot_built_in_a_transaction_that_rolled_back_is_never_served(settings, clock, signal):
    """The transaction's change makes revision r+1 and the snapshot is built from it; after the
    rollback another change commits as r+1 too: the next call must build that one."""
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "REVISION_SIGNAL": signal}
    with transaction.atomic():
        save_a_change(55)
        assert config.current_config().rate_limit.requests_per_minute == 55
        transaction.set_rollback(True)
    save_a_change(60)
    assert config.current_config().rate_limit.requests_per_minute == 60


@pytest.mark.django_db(transaction=True)
def test_a_snapshot_built_in_a_transaction_that_committed_is_kept(settings, clock):
    with transaction.atomic():
        save_a_change(61)
        built = config.current_config()
    assert built.rate_limit.requests_per_minute == 61
    assert config.current_config() is built
