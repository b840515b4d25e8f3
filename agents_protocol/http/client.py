"""Who is calling: the session token from any of the three accepted headers, and the client address
(core/networks.py, where the site reads it too)."""
from django.conf import settings
from django.core.exceptions import DisallowedHost

from agents_protocol.core.networks import client_address  # noqa: F401 (imported from here by the pipeline)

TOKEN_HEADERS = ("HTTP_X_SESSION_TOKEN", "HTTP_X_AGENT_SESSION")


def token_from_headers(meta):
    """`Authorization: Bearer <t>` (preferred), else `X-Session-Token`, else `X-Agent-Session`, of a
    request's META."""
    scheme, _, credentials = meta.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    for header in TOKEN_HEADERS:
        value = meta.get(header, "").strip()
        if value:
            return value
    return None


def request_origin(request):
    """`scheme://host[:port]` the request was made to; get_host() refuses a host outside
    ALLOWED_HOSTS, and this a port no TCP connection has. (What build_absolute_uri("/") gives
    without its slash, at half the cost.)"""
    return f"{request.scheme}://{checked_host(request)}"


ACCEPTED_HOSTS_KEPT = 256
accepted_hosts = {}  # what get_host() reads (host_inputs) → the host it and the port check accepted


def checked_host(request):
    """request.get_host(), which refuses a host outside ALLOWED_HOSTS, with the port checked;
    remembered for the values it reads (agents send the same Host call after call). A value
    refused is checked again each time, and raises."""
    asked = host_inputs(request)
    host = accepted_hosts.get(asked) if asked else None
    if host is not None:
        return host
    host = request.get_host()
    refuse_impossible_port(host)
    if asked:
        if len(accepted_hosts) >= ACCEPTED_HOSTS_KEPT:
            accepted_hosts.clear()
        accepted_hosts[asked] = host
    return host


def host_inputs(request):
    """What get_host() reads, as its documentation says, when the request has a Host header: that
    header and X-Forwarded-Host (read with USE_X_FORWARDED_HOST), checked against ALLOWED_HOSTS
    (any local name with DEBUG and none set). None without a Host header (get_host() then builds
    the host from SERVER_NAME and SERVER_PORT): not remembered."""
    meta = request.META
    if "HTTP_HOST" not in meta:
        return None
    return (meta["HTTP_HOST"], meta.get("HTTP_X_FORWARDED_HOST"), settings.USE_X_FORWARDED_HOST,
            tuple(settings.ALLOWED_HOSTS), settings.DEBUG)


def refuse_impossible_port(host):
    """DisallowedHost for a validated Host whose port is past 65535: Django takes any run of
    digits, and every URL the site writes, and every cache keyed by origin, would carry it."""
    if host.endswith("]"):
        return  # an IPv6 literal without a port
    _, colon, port = host.rpartition(":")
    if colon and (len(port) > 5 or int(port) > 65535):
        raise DisallowedHost(f"The Host header's port {port[:12]} is no TCP port.")
