"""Who is calling: the session token from any of the three accepted headers, and the client address
(core/networks.py, where the site reads it too)."""
from django.conf import settings
from django.core.exceptions import DisallowedHost

from agents_protocol.core.networks import client_address  # noqa: F401 (imported from here by the pipeline)

TOKEN_HEADERS = ("HTTP_X_SESSION_TOKEN", "HTTP_X_AGENT_SESSION")


def token_from_headers(request):
    """`Authorization: Bearer <t>` (preferred), else `X-Session-Token`, else `X-Agent-Session`."""
    scheme, _, credentials = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    for header in TOKEN_HEADERS:
        value = request.META.get(header, "").strip()
        if value:
            return value
    return None


def request_origin(request):
    """`scheme://host[:port]` the request was made to; get_host() refuses a host outside
    ALLOWED_HOSTS, and this a port no TCP connection has. (What build_absolute_uri("/") gives
    without its slash, at half the cost.)"""
    return f"{request.scheme}://{checked_host(request)}"


ACCEPTED_HOSTS_KEPT = 256
_accepted_hosts = set()  # (Host as sent, ALLOWED_HOSTS, DEBUG) that get_host() and the port check accepted


def checked_host(request):
    """request.get_host(), with the port checked, remembered for each Host value it accepted
    under the current ALLOWED_HOSTS and DEBUG: agents send the same one call after call. A value
    refused is checked again each time, and raises."""
    host = request._get_raw_host()
    asked = (host, tuple(settings.ALLOWED_HOSTS), settings.DEBUG)
    if asked in _accepted_hosts:
        return host
    host = request.get_host()
    refuse_impossible_port(host)
    if len(_accepted_hosts) >= ACCEPTED_HOSTS_KEPT:
        _accepted_hosts.clear()
    _accepted_hosts.add(asked)
    return host


def refuse_impossible_port(host):
    """DisallowedHost for a validated Host whose port is past 65535: Django takes any run of
    digits, and every URL the site writes, and every cache keyed by origin, would carry it."""
    if host.endswith("]"):
        return  # an IPv6 literal without a port
    _, colon, port = host.rpartition(":")
    if colon and (len(port) > 5 or int(port) > 65535):
        raise DisallowedHost(f"The Host header's port {port[:12]} is no TCP port.")
