"""A file in the site's private cache directory, memory-mapped by every process of the host.

The rate-limit counters (counters.py) and the configuration stamp (stamp.py) live in such
files. The first process to open one lays it out (its size, a header) under an exclusive flock;
every later one checks the layout and refuses a file of another, never resizing one that other
processes may have mapped. Each process maps it once, and again in a child after a fork: a flock
belongs to the open file, which a child shares with its parent until it opens its own. The
child is told through `os.register_at_fork`, which `os.fork()` runs (gunicorn's workers,
multiprocessing); a server forking in C without Python's fork hooks (uWSGI without
`py-call-osafterfork`) would leave its workers sharing one flock, and must not serve the
embedded profile.

`with shared_file as memory:` holds the file exclusively: the process's thread lock (threads
share the open file, so its flock does not keep them apart), then the flock, which keeps out
the other processes. The kernel releases the flock of a process that dies.
"""
import fcntl
import mmap
import os
import threading
import weakref

from django.core.exceptions import ImproperlyConfigured

from .cache_dir import make_private_directory

_instances = weakref.WeakSet()  # every SharedFile of this process, told when it forks


class SharedFile:
    def __init__(self, path, size, header=b"", description="file"):
        self.path = path
        self.size = size
        self.header = header  # the bytes a file of this layout starts with
        self.description = description  # what the file should be, for the error of one that is not
        self.fd = self._map = None
        self._inherited = None  # (map, descriptor) of the parent, in a child after a fork, until it opens its own
        self._lock = threading.Lock()  # threads of a process may share one instance
        _instances.add(self)

    def memory(self):
        """The map of the file, opened in this process if it is not yet."""
        memory = self._map
        if memory is None:
            with self._lock:
                if self._map is None:
                    self._open()
                memory = self._map
        return memory

    def __enter__(self):
        memory = self.memory()
        self._lock.acquire()
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except BaseException:
            self._lock.release()
            raise
        return memory

    def __exit__(self, *exc_info):
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            self._lock.release()

    def forked(self):
        """In a child after a fork: the map and descriptor are the parent's, and the lock may have
        been held by one of its other threads. The next use opens the file again."""
        self._lock = threading.Lock()
        if self.fd is not None or self._map is not None:  # either: the fork may have come in the middle of _open
            self._inherited, self.fd, self._map = (self._map, self.fd), None, None

    def _open(self):
        if self._inherited is not None:
            inherited_map, inherited_fd = self._inherited
            # Forgotten at once: should opening our own fail, a retry must not close the number
            # again, which by then may be another file's.
            self._inherited = None
            if inherited_map is not None:
                inherited_map.close()
            if inherited_fd is not None:
                os.close(inherited_fd)
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
        self.fd = fd

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


def _forked():
    for shared_file in list(_instances):
        shared_file.forked()


os.register_at_fork(after_in_child=_forked)
