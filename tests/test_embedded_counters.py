"""The embedded rate-limit counters (acme/embedded/counters.py): Django's cache API for integers,
exact across processes, bounded, and expiring like any cache."""
import multiprocessing
import os
import signal
import sys
import threading

import pytest
from django.core.exceptions import ImproperlyConfigured

from acme.embedded import counters
from acme.embedded.counters import PROBE_LENGTH, SharedMemoryCounters

INCREMENTS_PER_PROCESS = 2000
PROCESSES = 4


def counters_at(directory, slots=1024):
    return SharedMemoryCounters(str(directory / "rate-limits.counters"), {"OPTIONS": {"SLOTS": slots}})


@pytest.fixture
def table(tmp_path):
    return counters_at(tmp_path)


@pytest.fixture
def clock(monkeypatch):
    """The counters' clock, set by the test (their expiry comes from Django's timeout, time.time())."""
    now = [1_800_000_000.0]
    monkeypatch.setattr(counters.time, "time", lambda: now[0])
    return now


def test_add_then_incr_counts_like_django_ratelimit_expects(table):
    assert table.add("window", 1, 60) is True
    assert table.add("window", 1, 60) is False  # present: django-ratelimit then increments
    assert table.incr("window") == 2
    assert table.incr("window", 5) == 7
    assert table.get("window") == 7
    assert table.decr("window", 2) == 5


def test_incr_of_a_missing_key_raises_value_error_like_every_django_cache(table):
    with pytest.raises(ValueError):
        table.incr("missing")
    assert table.get("missing", "default") == "default"


def test_values_expire_with_their_timeout(table, clock):
    table.add("window", 1, 60)
    clock[0] += 59
    assert table.get("window") == 1
    clock[0] += 2
    assert table.get("window") is None
    assert table.add("window", 1, 60) is True  # a new window starts from its own value
    assert table.incr("window") == 2


def test_set_touch_delete_and_has_key(table, clock):
    table.set("key", 3, 10)
    assert table.has_key("key")
    assert table.touch("key", 100) is True
    clock[0] += 50
    assert table.get("key") == 3
    assert table.delete("key") is True
    assert not table.has_key("key")
    assert table.delete("key") is False
    table.set("forever", 1, None)
    clock[0] += 10**9
    assert table.get("forever") == 1


def test_keys_are_apart_by_name_and_version(table):
    table.set("a", 1)
    table.set("b", 2)
    table.set("a", 3, version=2)
    assert (table.get("a"), table.get("b"), table.get("a", version=2)) == (1, 2, 3)


def test_only_integers_are_stored(table):
    for value in ["1", 1.5, True, None]:
        with pytest.raises(TypeError):
            table.set("key", value)
    assert table.get("key") is None


def test_clear_empties_every_slot(table):
    for index in range(100):
        table.set(f"key{index}", index)
    table.clear()
    assert all(table.get(f"key{index}") is None for index in range(100))


def test_a_full_table_loses_the_counters_closest_to_their_end_first(tmp_path, clock):
    table = counters_at(tmp_path, slots=PROBE_LENGTH)
    for index in range(PROBE_LENGTH):
        table.set(f"key{index}", index, 1000 + index)  # key0 ends first
    table.set("newcomer", 99, 5000)
    assert table.get("newcomer") == 99
    assert table.get("key0") is None
    assert [table.get(f"key{index}") for index in range(1, PROBE_LENGTH)] == list(range(1, PROBE_LENGTH))


def test_expired_slots_are_taken_again_before_any_live_counter_is_lost(tmp_path, clock):
    table = counters_at(tmp_path, slots=PROBE_LENGTH)
    for index in range(PROBE_LENGTH):
        table.set(f"old{index}", index, 10)
    clock[0] += 11
    for index in range(PROBE_LENGTH):
        table.set(f"new{index}", index, 60)
    assert [table.get(f"new{index}") for index in range(PROBE_LENGTH)] == list(range(PROBE_LENGTH))


def test_a_second_opening_of_the_file_sees_the_same_counters(tmp_path):
    first, second = counters_at(tmp_path), counters_at(tmp_path)
    first.add("window", 1, 60)
    assert second.incr("window") == 2
    assert first.get("window") == 2


def test_another_slot_count_maps_a_file_of_its_own_and_never_resizes_one_in_use(tmp_path):
    """Workers of an old and a new SLOTS run side by side during a reload: shrinking the file under
    the old ones would kill them (SIGBUS) at their next count."""
    old = counters_at(tmp_path, slots=1024)
    old.set("window", 5)
    resized = counters_at(tmp_path, slots=2048)
    assert resized.get("window") is None
    resized.set("window", 6)
    assert (old.get("window"), resized.get("window")) == (5, 6)
    assert os.path.getsize(old.path) == 16 + 1024 * 32 and os.path.getsize(resized.path) == 16 + 2048 * 32


def test_a_file_that_is_not_a_table_of_counters_is_refused_untouched(tmp_path):
    planted = tmp_path / "rate-limits.counters.1024"
    planted.write_bytes(b"something else")
    with pytest.raises(ImproperlyConfigured, match="is not a table of 1024 counters"):
        counters_at(tmp_path).get("window")
    assert planted.read_bytes() == b"something else"


def test_a_file_whose_lay_out_was_cut_short_is_laid_out_again(tmp_path):
    # Sized, but its header never written (a full /dev/shm, a process killed between the two).
    cut_short = tmp_path / "rate-limits.counters.1024"
    cut_short.write_bytes(bytes(16 + 1024 * 32))
    table = counters_at(tmp_path)
    assert table.add("window", 1, 60) and table.incr("window") == 2
    assert counters_at(tmp_path).get("window") == 2


def test_a_child_whose_reopening_failed_never_closes_the_parents_descriptor_again(table, monkeypatch):
    table.add("shared", 1, 600)
    shared = table._file
    inherited = shared.fd
    shared.forked()  # as in a child after fork: the map and descriptor are the parent's
    refused = OSError("no descriptors left")
    monkeypatch.setattr(os, "open", lambda *args, **kwargs: (_ for _ in ()).throw(refused))
    with pytest.raises(OSError):
        table.get("shared")
    assert shared.fd is None and shared._map is None
    kept = os.dup(0)  # the number the failed reopening closed may be another file's now
    closed = []
    monkeypatch.undo()
    monkeypatch.setattr(os, "close", lambda fd: closed.append(fd))
    try:
        assert table.get("shared") == 1  # opened again, closing nothing it no longer owns
        assert inherited not in closed and kept not in closed
    finally:
        monkeypatch.undo()
        os.close(kept)


def _increment(location, times):
    table = SharedMemoryCounters(location, {"OPTIONS": {"SLOTS": 1024}})
    for _ in range(times):
        table.incr("shared")


def test_processes_incrementing_at_once_lose_no_count(tmp_path):
    table = counters_at(tmp_path)
    table.add("shared", 0, 600)
    context = multiprocessing.get_context("spawn")  # separate interpreters, as gunicorn's workers are
    workers = [context.Process(target=_increment, args=(str(tmp_path / "rate-limits.counters"), INCREMENTS_PER_PROCESS)) for _ in range(PROCESSES)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    assert table.get("shared") == PROCESSES * INCREMENTS_PER_PROCESS


def test_threads_incrementing_at_once_lose_no_count(table):
    table.add("shared", 0, 600)

    def increment():
        for _ in range(INCREMENTS_PER_PROCESS):
            table.incr("shared")

    threads = [threading.Thread(target=increment) for _ in range(PROCESSES)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can, inside every increment
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        sys.setswitchinterval(interval)
    assert not any(thread.is_alive() for thread in threads)
    assert table.get("shared") == PROCESSES * INCREMENTS_PER_PROCESS


def test_a_forked_child_takes_a_lock_of_its_own(table):
    table.get("opened")
    held = table._file._lock
    held.acquire()  # held by another thread of the parent at the fork
    try:
        pid = os.fork()
        if pid == 0:
            signal.alarm(10)  # would otherwise wait forever on the parent's lock; the alarm ends the child
            os._exit(0 if table.add("child", 1, 60) else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        held.release()
    assert os.waitstatus_to_exitcode(status) == 0
    assert table.get("child") == 1


def test_the_slot_remembered_for_a_key_is_read_again_only_while_it_holds_that_key(tmp_path, clock):
    table = counters_at(tmp_path, slots=PROBE_LENGTH)
    other_process = counters_at(tmp_path, slots=PROBE_LENGTH)  # the same file, remembering nothing of this one
    key = "remembered"
    table.add(key, 1, 10)
    assert table.incr(key) == 2  # from the remembered slot
    clock[0] += 11  # it expires, and the other process's newcomers take every slot: its own too
    for index in range(PROBE_LENGTH):
        other_process.set(f"newcomer{index}", index, 60)
    assert table.make_key(key) in table._known  # still remembered here, its slot now another key's
    assert table.add(key, 7, 60)  # found anew: the remembered slot no longer holds its digest
    assert table.incr(key) == 8
    assert [other_process.get(f"newcomer{index}") for index in range(PROBE_LENGTH)].count(None) == 1  # one made room
    other_process.clear()
    assert table.get(key) is None


def test_a_forked_child_maps_the_file_again_and_shares_the_counts(table):
    table.add("shared", 0, 600)
    table.incr("shared")
    context = multiprocessing.get_context("fork")
    child = context.Process(target=lambda: [table.incr("shared") for _ in range(10)])
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 0
    assert table.get("shared") == 11


def test_the_file_is_private_to_its_user(table):
    table.set("key", 1)
    assert os.stat(table.path).st_mode & 0o777 == 0o600


class Unlockable:
    def __enter__(self):
        pytest.fail("took the lock")


def test_add_of_a_key_counted_before_answers_without_the_lock_while_it_stays_live(table, clock):
    table.add("window", 1, 60)
    assert table.incr("window") == 2
    shared_file = table._file
    table._file = Unlockable()
    table._file.memory = shared_file.memory
    assert table.add("window", 1, 60) is False  # read from its known slot, no lock
    table._file = shared_file
    clock[0] += 59.5  # within LIVE_MARGIN_SECONDS of its end: asked under the lock, still live
    assert table.add("window", 1, 60) is False
    clock[0] += 1
    assert table.add("window", 1, 60) is True  # ended: a new window starts from its own value


def test_add_of_a_known_key_removed_by_another_process_is_asked_under_the_lock(tmp_path):
    table, other_process = counters_at(tmp_path), counters_at(tmp_path)
    table.add("window", 1, 60)
    other_process.delete("window")
    assert table.add("window", 5, 60) is True
    assert other_process.get("window") == 5


def test_a_fork_in_the_middle_of_opening_leaves_the_child_a_file_of_its_own(table):
    table.get("opened")
    shared = table._file
    inherited_fd = shared.fd
    shared.fd = None  # the fork came between _open() setting the map and the descriptor
    shared.forked()
    try:
        assert table.add("child", 1, 60) is True  # opened again: the inherited map closed, no None closed
        assert table.incr("child") == 2
        assert shared.fd not in (None, inherited_fd)
    finally:
        os.close(inherited_fd)
