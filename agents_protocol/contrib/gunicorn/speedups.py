"""Two per-request costs of gunicorn itself, paid once a second or once a client address instead.

A sync worker's request is mostly gunicorn's own Python: for a replayed agents.txt, the
application's part is a fifth of the worker's time (docs/performance.md). Two of gunicorn's
steps compute the same value again and again:

- the `Date` header, formatted anew for every answer (`util.http_date`): it changes once a second;
- whether the client may set forwarding headers (X-Forwarded-Proto …): gunicorn parses the
  client's address and matches it against `forwarded_allow_ips` for every request
  (`http.message._ip_in_allow_list`, gunicorn ≥ 24). The answer depends on the address and the
  configured list only, so it is remembered (for up to MAX_REMEMBERED_ADDRESSES addresses).

Each answer is the one gunicorn's own function gives; the workers (workers.py) install these
in their process when it starts.
"""
import functools
import time

from gunicorn import util
from gunicorn.http import message

MAX_REMEMBERED_ADDRESSES = 4096


class CheaperRequests:
    """Mixed into a gunicorn worker class: its process installs the functions below when it starts."""

    def init_process(self):
        install()
        super().init_process()


# gunicorn's own functions, as this module found them.
GUNICORN_HTTP_DATE = util.http_date
GUNICORN_ALLOW_LIST_CHECK = getattr(message, "_ip_in_allow_list", None)  # gunicorn ≥ 24


def install():
    util.http_date = date_header
    if GUNICORN_ALLOW_LIST_CHECK is not None:
        message._ip_in_allow_list = address_in_allow_list


_current_date = (None, "")  # (the Unix second, its Date header)


def date_header(timestamp=None):
    """util.http_date(), formatted once a second."""
    global _current_date
    if timestamp is not None:
        return GUNICORN_HTTP_DATE(timestamp)
    second = int(time.time())
    if _current_date[0] != second:
        _current_date = (second, GUNICORN_HTTP_DATE(second))
    return _current_date[1]


def address_in_allow_list(address, allow_list, networks):
    """gunicorn's _ip_in_allow_list(), remembered per address and configuration."""
    return remembered_allow_list_check(address, tuple(allow_list), tuple(networks))


@functools.lru_cache(maxsize=MAX_REMEMBERED_ADDRESSES)
def remembered_allow_list_check(address, allow_list, networks):
    return GUNICORN_ALLOW_LIST_CHECK(address, list(allow_list), list(networks))
