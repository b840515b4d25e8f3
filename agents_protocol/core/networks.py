"""Who the client is: its address, and what that address counts as for the rate limit and for
max_sessions."""
import ipaddress
from functools import lru_cache

from agents_protocol.core.conf import app_settings


# IPv6 prefixes that carry an IPv4 client's address in their last 32 bits: NAT64's well-known one.
IPV4_EMBEDDING = (ipaddress.ip_network("64:ff9b::/96"),)


@lru_cache(maxsize=4096)
def address_network(address_text):
    """An IPv6 address by its /64 (one host is routinely given all of it), any other as itself.

    Counting IPv6 clients by their own address would let one host take a fresh budget, or a
    fresh allowance of sessions, from each of its 2^64 addresses. An IPv4 client seen through
    IPv6 (a dual-stack socket's ::ffff:a.b.c.d, NAT64) counts as its IPv4 address: their /64 is
    every IPv4 client at once.
    """
    address = ipaddress.ip_address(address_text)
    if address.version == 4:
        return str(address)
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    if any(address in prefix for prefix in IPV4_EMBEDDING):
        return str(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return str(ipaddress.ip_network(f"{address}/64", strict=False))


def client_address(request):
    """REMOTE_ADDR, or behind TRUSTED_PROXY_COUNT = n proxies the address the outermost one saw.

    Each proxy appends its peer's address to X-Forwarded-For, so that address is the n-th
    entry from the right; entries further left are whatever the client sent. A header too
    short to have passed all n proxies, or not holding an address there, is ignored.
    """
    remote = request.META.get("REMOTE_ADDR") or "0.0.0.0"
    trusted = app_settings.TRUSTED_PROXY_COUNT
    if not trusted:
        return remote
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    if len(hops) < trusted:
        return remote
    try:
        return str(ipaddress.ip_address(hops[-trusted]))
    except ValueError:
        return remote
