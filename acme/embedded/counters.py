"""The embedded profile's rate-limit counters: integers in a table of slots in shared memory.

django-ratelimit counts every agent call with the cache's add() and incr(). In the embedded
diskcache each increment is a SQLite write transaction, about 20 µs inside a request on the
benchmark machine; here it is a few reads and writes of a memory-mapped file under an
exclusive flock, which every process of the host takes for each operation (docs/performance.md).

django-ratelimit asks add() and then incr() of one key for each call it counts: add() of a key
the process has counted before, whose slot still shows it live for LIVE_MARGIN_SECONDS or more,
answers from a read of the map without the lock, so a counted call takes the lock once (its
increment). Between that read and the increment the key could only be lost as it could between
two locked operations: removed (delete, clear) or evicted by a full probe window, never by
expiring, as it outlives the margin.

The file, `LOCATION` and the slot count (`rate-limits.counters.65536`), holds a header and
OPTIONS["SLOTS"] slots of (key digest, value, expiry):
a key is found by its 128-bit BLAKE2b digest, probing at most PROBE_LENGTH slots from its
hash. A key whose probe window is full of live counters takes the slot of the one that
expires first: the table is bounded, and under more live keys than slots the counters
closest to their end are lost first (a client's window then starts again at zero). With the
default 65,536 slots (2 MiB) that takes tens of thousands of clients counted in one minute.

Only integers are stored: this cache is for counters (RATELIMIT_USE_CACHE), not for values in
general. Nothing survives the host: like the rest of the embedded cache, the file lives in the
site's private directory in /dev/shm (acme/embedded/cache_dir.py). The kernel releases the
flock of a process that dies, so a crash never blocks the others.
"""
import hashlib
import struct
import time

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache

from .shared_file import SharedFile

MAGIC = b"acmectr1"
HEADER = struct.Struct("<8sQ")  # magic, slot count
SLOT = struct.Struct("<16sqd")  # key digest (zeros: never used), value, expiry (Unix time; 0: removed)
NEVER_USED = bytes(16)
NO_EXPIRY = float("inf")
DEFAULT_SLOTS = 65_536
PROBE_LENGTH = 32
LIVE_MARGIN_SECONDS = 1.0
KNOWN_KEYS = 4096  # keys whose digest and slot a process remembers (a minute's clients, usually)


class SharedMemoryCounters(BaseCache):
    """A Django cache of integer counters shared by the processes of one host."""

    def __init__(self, location, params):
        super().__init__(params)
        options = params.get("OPTIONS", {})
        self.slots = int(options.get("SLOTS", DEFAULT_SLOTS))
        if self.slots < PROBE_LENGTH:
            raise ValueError(f"SLOTS must be at least {PROBE_LENGTH}")
        # Named for its layout: processes of another SLOTS (a reload under way) map a file of their
        # own, as a file mapped elsewhere must never be resized under them.
        self.path = f"{location}.{self.slots}"
        self._file = SharedFile(self.path, HEADER.size + self.slots * SLOT.size, HEADER.pack(MAGIC, self.slots),
                                f"a table of {self.slots} counters")
        self._known = {}  # made key → (digest, its last slot): see _find()

    # Django's cache API, for integer values.

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        value = _integer(value)
        made = self.make_key(key, version=version)
        if self._known_live(made):
            return False
        with self._file as memory:
            table = _Table(memory, self.slots)
            digest, position, live = self._find(table, made)
            if live:
                return False
            table.write(position, digest, value, self._expiry(timeout))
            return True

    def get(self, key, default=None, version=None):
        with self._file as memory:
            table = _Table(memory, self.slots)
            _, position, live = self._find(table, self.make_key(key, version=version))
            return table.value(position) if live else default

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        value = _integer(value)
        with self._file as memory:
            table = _Table(memory, self.slots)
            digest, position, _ = self._find(table, self.make_key(key, version=version))
            table.write(position, digest, value, self._expiry(timeout))

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        with self._file as memory:
            table = _Table(memory, self.slots)
            digest, position, live = self._find(table, self.make_key(key, version=version))
            if live:
                table.write(position, digest, table.value(position), self._expiry(timeout))
            return live

    def delete(self, key, version=None):
        with self._file as memory:
            table = _Table(memory, self.slots)
            digest, position, live = self._find(table, self.make_key(key, version=version))
            if live:
                table.write(position, digest, 0, 0.0)
            return live

    def incr(self, key, delta=1, version=None):
        delta = _integer(delta)
        with self._file as memory:
            table = _Table(memory, self.slots)
            _, position, live = self._find(table, self.make_key(key, version=version))
            if not live:
                raise ValueError(f"Key '{key}' not found")
            value = table.value(position) + delta
            table.write_value(position, value)
            return value

    def has_key(self, key, version=None):
        with self._file as memory:
            return self._find(_Table(memory, self.slots), self.make_key(key, version=version))[2]

    def clear(self):
        with self._file as memory:
            _Table(memory, self.slots).clear()

    def close(self, **kwargs):
        pass  # the map stays open from one request to the next, as the database connection does

    # The table.

    def _find(self, table, made):
        """(digest, position, live) of the slot of `made` (a key as make_key() made it, with its
        version), under the lock.

        The keys asked about keep their digest and last slot (KNOWN_KEYS of them, in a dict that
        threads may share), and that slot is read first: it is the key's slot while it still
        holds the key's digest.
        """
        digest, known_position = self._known.get(made) or (None, None)
        if digest is None:
            digest = hashlib.blake2b(made.encode(), digest_size=16).digest()
            if len(self._known) >= KNOWN_KEYS:
                self._known.clear()
        position, live = table.find(digest, known_position)
        self._known[made] = (digest, position)
        return digest, position, live

    def _known_live(self, made):
        """Whether the slot last known for `made`, read without the lock, still holds it for
        LIVE_MARGIN_SECONDS at least (the module's docstring says why that is safe)."""
        digest, position = self._known.get(made) or (None, None)
        if digest is None:
            return False
        stored, _, expiry = SLOT.unpack_from(self._file.memory(), HEADER.size + position * SLOT.size)
        return stored == digest and expiry > time.time() + LIVE_MARGIN_SECONDS

    def _expiry(self, timeout):
        timeout = self.get_backend_timeout(timeout)
        return NO_EXPIRY if timeout is None else timeout


class _Table:
    def __init__(self, memory, slots):
        self.memory = memory
        self.slots = slots

    def offset(self, position):
        return HEADER.size + position * SLOT.size

    def find(self, digest, known_position=None):
        """(position, live): the key's live slot, else the slot a new value for it takes.

        A key is in one slot at most (probing stops at its digest), so a `known_position` still
        holding the digest is that slot.
        """
        now = time.time()
        if known_position is not None:
            stored, _, expiry = SLOT.unpack_from(self.memory, self.offset(known_position))
            if stored == digest:
                return known_position, expiry > now
        start = int.from_bytes(digest[:8], "little") % self.slots
        free = None
        earliest = None  # (expiry, position) of the live slot that ends first, to evict
        for step in range(PROBE_LENGTH):
            position = (start + step) % self.slots
            stored, _, expiry = SLOT.unpack_from(self.memory, self.offset(position))
            if stored == digest:
                if expiry > now:
                    return position, True
                return position, False
            if stored == NEVER_USED:
                return (free if free is not None else position), False
            if expiry <= now:
                if free is None:
                    free = position
            elif earliest is None or expiry < earliest[0]:
                earliest = (expiry, position)
        return (free if free is not None else earliest[1]), False

    def value(self, position):
        return SLOT.unpack_from(self.memory, self.offset(position))[1]

    def write(self, position, digest, value, expiry):
        SLOT.pack_into(self.memory, self.offset(position), digest, value, expiry)

    def write_value(self, position, value):
        struct.pack_into("<q", self.memory, self.offset(position) + 16, value)

    def clear(self):
        self.memory[HEADER.size:] = bytes(len(self.memory) - HEADER.size)


def _integer(value):
    if type(value) is not int:
        raise TypeError(f"SharedMemoryCounters stores integers only, not {type(value).__name__}")
    return value
