"""The embedded profile's configuration signal: a number in shared memory that moves on every change.

agents_protocol reads the configuration's revision row on every request unless a
REVISION_SIGNAL tells it the configuration may have changed (agents_protocol/core/config.py).
On one host every process maps this file: `bump()`, called by the process that saves a
change once it has committed, adds one under an exclusive flock (and a lock of the process, as
its threads share the file); `read()` is one load from the map, with no lock and no query. A
read torn by a concurrent bump gives some other value, which makes the reader go to the
database; only a value the stamp held a few hundred bumps earlier could match, and a reader
trusts what it read for at most a second anyway (agents_protocol/core/config.py). The file
sits beside the rate-limit counters, in the site's private CACHE_DIR.
"""
import fcntl
import mmap
import os
import struct
import threading

from django.conf import settings

from .cache_dir import make_private_directory

STAMP = struct.Struct("<Q")
FILE_NAME = "configuration.stamp"


class SharedMemoryStamp:
    def __init__(self, path=None):
        self.path = path or os.path.join(settings.CACHE_DIR, FILE_NAME)
        self._fd = self._map = self._pid = None
        self._lock = threading.Lock()  # a flock does not keep apart threads that share its file

    def read(self):
        if self._pid != os.getpid():  # opened before a fork: the child maps the file again
            self._open()
        return STAMP.unpack_from(self._map)[0]

    def bump(self):
        if self._pid != os.getpid():
            self._open()
        with self._lock:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                STAMP.pack_into(self._map, 0, (STAMP.unpack_from(self._map)[0] + 1) % 2**64)
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _open(self):
        with self._lock:
            if self._pid != os.getpid():
                self._map_file()

    def _map_file(self):
        if self._fd is not None:  # the parent's, inherited through fork
            self._map.close()
            os.close(self._fd)
        make_private_directory(os.path.dirname(self.path))
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            if os.fstat(self._fd).st_size < STAMP.size:
                os.ftruncate(self._fd, STAMP.size)
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._map = mmap.mmap(self._fd, STAMP.size)
        self._pid = os.getpid()
