"""Writers of the embedded SQLite files queue on acme.embedded.write_lock instead of SQLite's sleeps."""
import threading
import time

import pytest
from django.db import OperationalError, connection, transaction

from acme.embedded.write_lock import WriteLock, WriteLockTimeout
from agents_protocol.models import ConfigRevision


def lock_path():
    return f"{connection.settings_dict['NAME']}.write-lock"


def test_a_second_holder_waits_until_the_first_releases(tmp_path):
    first, second = WriteLock(tmp_path / "lock", timeout=5), WriteLock(tmp_path / "lock", timeout=5)
    first.acquire()
    released_at = []

    def release_soon():
        time.sleep(0.05)
        released_at.append(time.monotonic())
        first.release()

    threading.Thread(target=release_soon).start()
    second.acquire()
    acquired_at = time.monotonic()
    assert second.held and released_at and acquired_at >= released_at[0]
    second.close()
    first.close()


def test_a_holder_that_never_releases_times_the_waiter_out(tmp_path):
    with WriteLock(tmp_path / "lock", timeout=5):
        waiter = WriteLock(tmp_path / "lock", timeout=0.05)
        with pytest.raises(WriteLockTimeout):
            waiter.acquire()
        assert not waiter.held
    waiter.acquire()  # free again once the block ends
    waiter.close()


@pytest.mark.django_db(transaction=True)
def test_a_transaction_holds_the_database_write_lock_until_it_ends():
    outsider = WriteLock(lock_path(), timeout=0.02)
    with transaction.atomic():
        ConfigRevision.objects.update_or_create(pk=1, defaults={"number": 7})
        with pytest.raises(WriteLockTimeout):
            outsider.acquire()
    outsider.acquire()  # committed: released
    outsider.release()
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        ConfigRevision.objects.filter(pk=1).update(number=8)
        1 / 0
    outsider.acquire()  # rolled back: released too
    outsider.close()
    assert ConfigRevision.objects.get(pk=1).number == 7


@pytest.mark.django_db(transaction=True)
def test_a_writer_that_cannot_get_the_lock_fails_like_a_locked_database(monkeypatch):
    connection.ensure_connection()
    monkeypatch.setattr(connection.write_lock, "timeout", 0.02)
    with WriteLock(lock_path(), timeout=1):
        with pytest.raises(OperationalError, match="database is locked"), transaction.atomic():
            ConfigRevision.objects.filter(pk=1).update(number=9)
    assert not connection.write_lock.held
    with transaction.atomic():  # and the connection still works afterwards
        ConfigRevision.objects.update_or_create(pk=1, defaults={"number": 10})
    assert ConfigRevision.objects.get(pk=1).number == 10
