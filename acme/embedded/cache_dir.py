"""Where the embedded cache keeps its SQLite files (CACHE_DIR).

The cache holds the API's rate-limit counters, each good for a minute, and the health probe's
key: nothing in it needs to outlive the host. By default it lives in shared memory (/dev/shm,
a tmpfs on Linux). On disk, every SQLite checkpoint of the counters ended in an fsync taken
under the writers' lock, and under load each one stalled the agent calls queued behind it,
for up to hundreds of milliseconds (docs/performance.md).

/dev/shm is writable by every local user, so each site gets a directory of its own, named
after its DATA_DIR (two sites on one host never share counters), created for this user alone
and checked before use.
"""
import hashlib
import os
import stat
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

SHARED_MEMORY = Path("/dev/shm")


def default_cache_dir(data_dir):
    """This site's directory in shared memory, or `data_dir`/cache on a host without one."""
    if SHARED_MEMORY.is_dir() and os.access(SHARED_MEMORY, os.W_OK | os.X_OK):
        site = hashlib.sha256(str(Path(data_dir).resolve()).encode()).hexdigest()[:16]
        return SHARED_MEMORY / f"acme-cache-{site}"
    return Path(data_dir) / "cache"


def make_private_directory(path):
    """Create `path` for this user alone (0700), or check that an existing one is private:
    a directory, not a link, owned by this user, that no other user can write to."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    status = os.lstat(path)
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.geteuid() or status.st_mode & 0o022:
        raise ImproperlyConfigured(
            f"The cache directory {path} must be a directory of user {os.geteuid()} that no other user "
            "can write to; remove it, or set CACHE_DIR to another directory."
        )
