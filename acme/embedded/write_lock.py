"""A writers' queue for SQLite files shared by the processes of one host.

SQLite makes a writer that finds the file locked sleep 1, 2, 5, 10 … ms before it tries
again. Under `make bench`'s cart.add, a third of each call went to those sleeps although
the lock was only ever held for a few hundred microseconds (docs/performance.md). Writers
that first take this lock (an exclusive flock on a file beside the database) wait here
instead, retrying within microseconds of the holder's release, and then find SQLite's own
lock free. SQLite still does the locking that matters: a writer that skips this queue
(a manage.py command, the sqlite3 shell) is only slower, never unsafe.
"""
import fcntl
import os
import time

FIRST_PAUSE_SECONDS = 20e-6
LONGEST_PAUSE_SECONDS = 1e-3


class WriteLockTimeout(Exception):
    pass


class WriteLock:
    """An exclusive flock on `path`, one per connection (flock locks belong to the open file,
    so two threads of one process, each with its own connection, queue like two processes).
    Also a context manager: `with lock:` holds it for the block."""

    def __init__(self, path, timeout):
        self.path = path
        self.timeout = timeout
        self.held = False
        self._fd = None

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc_info):
        self.release()

    def acquire(self):
        """Take the lock, or raise WriteLockTimeout after `timeout` seconds."""
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        deadline = time.monotonic() + self.timeout
        pause = FIRST_PAUSE_SECONDS
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise WriteLockTimeout(f"{self.path} stayed locked for {self.timeout} s") from None
                time.sleep(pause)
                pause = min(pause * 2, LONGEST_PAUSE_SECONDS)
            else:
                self.held = True
                return

    def release(self):
        if self.held:
            self.held = False
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self):
        self.release()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
