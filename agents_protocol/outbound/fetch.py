"""The one guarded fetch every outbound request goes through.

The host is resolved once (addresses.resolve) and the connection goes to that very address, with
the name kept for the Host header and for TLS (SNI and the certificate check), so a second DNS
answer cannot point the request elsewhere. Connect, each read and the whole exchange are bounded
by OUTBOUND_TIMEOUT_SECONDS, the answer by OUTBOUND_MAX_BYTES; a redirect is followed only when
asked for, and only to an address that would be allowed in the first place.
"""
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import urllib3
from urllib3.exceptions import HTTPError as Urllib3Error
from urllib3.exceptions import NewConnectionError

from agents_protocol.core.conf import app_settings
from agents_protocol.outbound.addresses import OutboundRefused, resolve

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
READ_CHUNK = 16 * 1024


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict
    body: bytes


def fetch(url, method="GET", body=None, headers=None, redirects=0):
    """Send one request to `url` and read its answer; OutboundRefused when it may not be sent or fails.

    `redirects` is how many redirects a GET may follow, each checked as the first request was.
    """
    deadline = time.monotonic() + app_settings.OUTBOUND_TIMEOUT_SECONDS
    for _ in range(redirects + 1):
        answer = _exchange(url, method, body, headers or {}, deadline)
        location = answer.headers.get("location")
        if answer.status not in REDIRECT_STATUSES or not redirects or not location:
            return answer
        url = urljoin(url, location)
    raise OutboundRefused(f"More than {redirects} redirects.")


def _exchange(url, method, body, headers, deadline):
    """One request to `url`, on the first of its addresses that accepts the connection (a name
    such as localhost may resolve to ::1 and 127.0.0.1, and a server listen on one of them)."""
    parts = _checked_url(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    for address in resolve(parts.hostname, port):
        try:
            return _exchange_with(address, port, parts, method, body, headers, deadline)
        except NewConnectionError as error:
            refused = error  # the next address; a timeout is not tried again, the deadline is shared
    raise OutboundRefused(f"{parts.hostname} did not answer: {refused}")


def _exchange_with(address, port, parts, method, body, headers, deadline):
    remaining = _remaining(deadline)
    pool = _pool(parts, address, port, urllib3.Timeout(connect=remaining, read=remaining))
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    try:
        response = pool.urlopen(
            method, target, body=body, headers={"Host": _host_header(parts), "Accept-Encoding": "identity", **headers},
            redirect=False, retries=False, preload_content=False, decode_content=False)
        try:
            return Answer(response.status, {name.lower(): value for name, value in response.headers.items()},
                          _read_capped(response, deadline))
        finally:
            response.release_conn()
    except NewConnectionError:
        raise
    except (Urllib3Error, OSError) as error:
        raise OutboundRefused(f"{parts.hostname} did not answer: {error}") from None
    finally:
        pool.close()


def _checked_url(url):
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (ValueError for a port out of range)
    except ValueError:
        raise OutboundRefused(f"{url!r} is not a URL.") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise OutboundRefused(f"{url!r} is not an http or https URL.")
    if parts.username or parts.password:
        raise OutboundRefused("A URL with credentials in it is not fetched.")
    return parts


def _pool(parts, address, port, timeout):
    if parts.scheme == "https":
        return urllib3.HTTPSConnectionPool(str(address), port, timeout=timeout, maxsize=1, retries=False,
                                           server_hostname=parts.hostname, assert_hostname=parts.hostname)
    return urllib3.HTTPConnectionPool(str(address), port, timeout=timeout, maxsize=1, retries=False)


def _host_header(parts):
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{host}:{parts.port}" if parts.port else host


def _remaining(deadline):
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise OutboundRefused(f"No complete answer within {app_settings.OUTBOUND_TIMEOUT_SECONDS} s.")
    return remaining


def _read_capped(response, deadline):
    """The body, read as it comes: refused once it passes the size cap or the deadline."""
    limit = app_settings.OUTBOUND_MAX_BYTES
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > limit:
        raise OutboundRefused(f"The answer is {declared} bytes, over the limit of {limit}.")
    received = bytearray()
    while True:
        _remaining(deadline)
        chunk = response.read1(READ_CHUNK)
        if not chunk:
            return bytes(received)
        received += chunk
        if len(received) > limit:
            raise OutboundRefused(f"The answer is over the limit of {limit} bytes.")
