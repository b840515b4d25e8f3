"""Opt-in tuning of gunicorn for this site: two per-request costs of gunicorn's own, paid once a
second or once a client address instead (GUNICORN_SPEEDUPS=1, deploy/gunicorn.conf.py).

A sync worker's request is mostly gunicorn's own Python: for a replayed agents.txt, the
application's part is a fifth of the worker's time (docs/performance.md). Two of gunicorn's
steps compute the same value again and again:

- the `Date` header, formatted anew for every answer (`util.http_date`): it changes once a second;
- whether the client may set forwarding headers (X-Forwarded-Proto …): gunicorn parses the
  client's address and matches it against `forwarded_allow_ips` for every request
  (`http.message._ip_in_allow_list`, gunicorn ≥ 24). The answer depends on the address and the
  configured list only, so it is remembered (for up to MAX_REMEMBERED_ADDRESSES addresses).

Measured with the access log's time formatted once a second too (acme/log_redaction.py): a
replayed agents.txt +12% requests/s, +5.6% without the forwarding check's memo
(docs/performance.md). Both replace functions of gunicorn, one of them private, which a release
may rename or change: this is the site's own tuning, not the app's, and
tests/test_gunicorn_speedups.py holds each answer to gunicorn's own.
"""
import functools
import time

from gunicorn import util
from gunicorn.http import message

from agents_protocol.contrib.gunicorn import workers

MAX_REMEMBERED_ADDRESSES = 4096


class CheaperRequests:
    """Mixed into a gunicorn worker class: its process installs the functions below when it starts."""

    def init_process(self):
        install()
        super().init_process()


class SyncWorker(CheaperRequests, workers.SyncWorker):
    """The app's sync worker (gunicorn's refusals in the envelope), with the functions below."""


class ThreadWorker(CheaperRequests, workers.ThreadWorker):
    """The app's gthread worker, with the functions below."""


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
