"""The X-Request-ID every answer of the agent paths carries: 32 hex digits, new for each request.

An id names a request in logs and error reports; it is no secret and grants nothing, so it
comes from the `random` module (reseeded in every forked worker) instead of the operating
system's entropy, which is a system call per request (uuid4 asks os.urandom).
"""
from random import getrandbits


def new_request_id():
    return f"{getrandbits(128):032x}"
