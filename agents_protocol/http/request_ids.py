"""The X-Request-ID every answer of the agent paths carries: 32 hex digits, new for each request.

An id names a request in logs and error reports; it is no secret and grants nothing, so it
comes from a pseudo-random generator of its own instead of the operating system's entropy,
which is a system call per request (uuid4 asks os.urandom). The generator is seeded from that
entropy when the module loads and again in every child `os.fork()` makes, and nothing else
seeds it (the `random` module's shared one is reseeded by any code that likes, tests included).
"""
import os
import random

_ids = random.Random()
os.register_at_fork(after_in_child=_ids.seed)


def new_request_id():
    return f"{_ids.getrandbits(128):032x}"
