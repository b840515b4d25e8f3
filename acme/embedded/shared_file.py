"""A file in the site's private cache directory, memory-mapped by every process of the host.

The rate-limit counters (counters.py) and the configuration stamp (stamp.py) live in such
files. The first process to open one lays it out (its size, a header) under an exclusive flock;
every later one checks the layout and refuses a file of another, never resizing one that other
processes may have mapped. Each process maps it once, and again in a child after a fork.
"""
import fcntl
import mmap
import os
import threading

from django.core.exceptions import ImproperlyConfigured

from .cache_dir import make_private_directory


class SharedFile:
    def __init__(self, path, size, header=b"", description="file"):
        self.path = path
        self.size = size
        self.header = header  # the bytes a file of this layout starts with
        self.description = description  # what the file should be, for the error of one that is not
        self.fd = self._map = self._pid = None
        self._lock = threading.Lock()  # threads of a process may share one instance

    def memory(self):
        """The map of the file, opened in this process if it is not yet."""
        if self._pid != os.getpid():
            with self._lock:
                if self._pid != os.getpid():
                    self._open()
        return self._map

    def _open(self):
        if self.fd is not None:  # the parent's, inherited through fork
            self._map.close()
            os.close(self.fd)
            # Forgotten at once: should opening our own fail, a retry must not close the number
            # again, which by then may be another file's.
            self.fd = self._map = self._pid = None
        make_private_directory(os.path.dirname(self.path))
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                self._lay_out_or_check(fd)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
            self._map = mmap.mmap(fd, self.size)
        except BaseException:
            os.close(fd)
            raise
        self.fd, self._pid = fd, os.getpid()

    def _lay_out_or_check(self, fd):
        size = os.fstat(fd).st_size
        if size == 0 or (size == self.size and self._header_never_written(fd)):
            # New, or a lay-out cut short between its two steps (the header's write refused on a
            # full /dev/shm, the process killed): the first process to get here lays it out.
            os.ftruncate(fd, self.size)
            os.pwrite(fd, self.header, 0)
        elif size != self.size or os.pread(fd, len(self.header), 0) != self.header:
            raise ImproperlyConfigured(f"{self.path} is not {self.description}; remove it.")

    def _header_never_written(self, fd):
        return bool(self.header) and os.pread(fd, len(self.header), 0) == bytes(len(self.header))
