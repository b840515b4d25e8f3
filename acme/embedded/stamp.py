"""The embedded profile's configuration signal: a number in shared memory that moves on every change.

agents_protocol reads the configuration's revision row on every request unless a
REVISION_SIGNAL tells it the configuration may have changed (agents_protocol/core/config.py).
On one host every process maps this file: `bump()`, called by the process that saves a
change once it has committed, adds one holding the file exclusively (shared_file.py);
`read()` is one load from the map, with no lock and no query. A
read torn by a concurrent bump gives some other value, which makes the reader go to the
database; only a value the stamp held a few hundred bumps earlier could match, and a reader
trusts what it read for at most a second anyway (agents_protocol/core/config.py). The file
sits beside the rate-limit counters, in the site's private CACHE_DIR.
"""
import os
import struct

from django.conf import settings

from .shared_file import SharedFile

STAMP = struct.Struct("<Q")
FILE_NAME = "configuration.stamp"


class SharedMemoryStamp:
    def __init__(self, path=None):
        self.path = path or os.path.join(settings.CACHE_DIR, FILE_NAME)
        self._file = SharedFile(self.path, STAMP.size, description="a configuration stamp")

    def read(self):
        return STAMP.unpack_from(self._file.memory())[0]

    def bump(self):
        with self._file as memory:
            STAMP.pack_into(memory, 0, (STAMP.unpack_from(memory)[0] + 1) % 2**64)
