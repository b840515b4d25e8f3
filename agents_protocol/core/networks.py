"""What a client address counts as, for the rate limit and for max_sessions."""
import ipaddress
from functools import lru_cache


@lru_cache(maxsize=4096)
def address_network(address_text):
    """An IPv6 address by its /64 (one host is routinely given all of it), any other as itself.

    Counting IPv6 clients by their own address would let one host take a fresh budget, or a
    fresh allowance of sessions, from each of its 2^64 addresses.
    """
    address = ipaddress.ip_address(address_text)
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)
