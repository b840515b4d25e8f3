"""Which addresses the app's own requests may reach: public ones, and those in OUTBOUND_ALLOWED_NETWORKS."""
import ipaddress
import socket

from agents_protocol.core.conf import app_settings


class OutboundRefused(Exception):
    """A request the app will not make, or that failed: the message says why, for a log or a refusal."""


def allowed(address):
    """True for a public unicast address, or one in a network the settings allow.

    An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
    """
    candidates = [address] + ([address.ipv4_mapped] if address.version == 6 and address.ipv4_mapped else [])
    networks = [ipaddress.ip_network(text, strict=False) for text in app_settings.OUTBOUND_ALLOWED_NETWORKS]
    if any(candidate in network for candidate in candidates for network in networks
           if candidate.version == network.version):
        return True
    return all(candidate.is_global and not candidate.is_multicast for candidate in candidates)


def resolve(host, port):
    """The addresses the request may connect to: `host` resolved once, every answer allowed.

    A name with any refused address is refused whole, so an answer that mixes a public and a
    private address cannot reach the private one on another lookup (DNS rebinding).
    """
    try:
        answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise OutboundRefused(f"{host} cannot be resolved: {error}") from None
    addresses = list(dict.fromkeys(ipaddress.ip_address(answer[4][0].split("%", 1)[0]) for answer in answers))
    refused = [address for address in addresses if not allowed(address)]
    if refused or not addresses:
        raise OutboundRefused(f"{host} resolves to {refused[0] if refused else 'nothing'}, "
                              "which is not a public address.")
    return addresses
