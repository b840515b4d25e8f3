"""The guarded fetch (agents_protocol/outbound/fetch.py) against a server on 127.0.0.1: what it
refuses to reach, and the bounds on what it reads."""
import datetime
import socket
import ssl
import time

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from agents_protocol.outbound.addresses import OutboundRefused
from agents_protocol.outbound.fetch import fetch
from tests.platform_server import PlatformServer


@pytest.fixture
def server():
    with PlatformServer() as running:
        yield running


@pytest.fixture
def outbound(settings):
    """Set AGENTS_PROTOCOL's outbound keys for the test."""
    def configure(**keys):
        settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, **keys}
    return configure


@pytest.fixture
def loopback_allowed(outbound):
    outbound(OUTBOUND_ALLOWED_NETWORKS=["127.0.0.1/32"], OUTBOUND_TIMEOUT_SECONDS=1)


def test_a_public_answer_is_read_whole(server, loopback_allowed):
    server.answer("/profile", body={"ucp": {"version": "2026-01-11"}})

    answer = fetch(server.url("/profile"))

    assert (answer.status, answer.body) == (200, b'{"ucp": {"version": "2026-01-11"}}')
    assert answer.headers["content-type"] == "application/json"


@pytest.mark.parametrize("address", ["127.0.0.1", "10.0.0.1", "172.16.0.1", "192.168.1.1", "169.254.169.254",
                                     "100.64.0.1", "0.0.0.0", "224.0.0.1", "240.0.0.1", "[::1]", "[fe80::1]",
                                     "[fc00::1]", "[::ffff:127.0.0.1]", "[::ffff:169.254.169.254]"])
def test_private_loopback_link_local_and_reserved_addresses_are_refused_by_default(address, server):
    with pytest.raises(OutboundRefused, match="not a public address"):
        fetch(f"http://{address}:{server.port}/profile")
    assert server.requests == []


def test_a_name_resolving_to_a_private_address_is_refused(server):
    """localhost is a name: the check is on what it resolves to, not on how the URL is spelled."""
    with pytest.raises(OutboundRefused, match="localhost resolves to 127.0.0.1"):
        fetch(server.url("/profile", host="localhost"))
    assert server.requests == []


def test_a_name_is_resolved_once_and_the_request_goes_to_that_address(server, loopback_allowed, monkeypatch):
    """The connection goes to the checked address, carrying the name only in Host: no second lookup
    can send it elsewhere (DNS rebinding)."""
    lookups = []

    def one_answer(host, port, *args, **kwargs):
        lookups.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(socket, "getaddrinfo", one_answer)
    server.answer("/profile", body={})

    assert fetch(server.url("/profile", host="platform.example")).status == 200
    assert [host for host in lookups if host != "127.0.0.1"] == ["platform.example"]  # the socket gets the address
    assert server.requests[0].headers["Host"] == f"platform.example:{server.port}"


def test_a_name_with_one_private_answer_among_public_ones_is_refused(server, monkeypatch):
    def mixed(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", port)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(socket, "getaddrinfo", mixed)
    with pytest.raises(OutboundRefused, match="127.0.0.1, which is not a public address"):
        fetch(server.url("/profile", host="rebind.example"))


def test_an_allowed_network_opens_only_itself(server, outbound):
    outbound(OUTBOUND_ALLOWED_NETWORKS=["127.0.0.2/32"])
    with pytest.raises(OutboundRefused, match="not a public address"):
        fetch(server.url("/profile"))


def test_a_redirect_to_a_refused_address_is_not_followed(server, loopback_allowed):
    server.answer("/moved", status=302, headers={"Location": "http://169.254.169.254/latest/meta-data/"})

    with pytest.raises(OutboundRefused, match="169.254.169.254, which is not a public address"):
        fetch(server.url("/moved"), redirects=3)


def test_an_allowed_redirect_is_followed_within_the_count(server, loopback_allowed):
    server.answer("/moved", status=301, headers={"Location": "/profile"})
    server.answer("/profile", body={"ok": 1})
    server.answer("/loop", status=302, headers={"Location": "/loop"})

    assert fetch(server.url("/moved"), redirects=1).body == b'{"ok": 1}'
    assert fetch(server.url("/moved")).status == 301  # not asked to follow: the redirect is the answer
    with pytest.raises(OutboundRefused, match="More than 2 redirects"):
        fetch(server.url("/loop"), redirects=2)


def test_a_slow_answer_times_out(server, loopback_allowed):
    server.answer("/slow", body={}, delay=3)

    started = time.monotonic()
    with pytest.raises(OutboundRefused, match="did not answer"):
        fetch(server.url("/slow"))
    assert time.monotonic() - started < 2


def test_an_answer_dripping_in_under_the_read_timeout_still_ends_at_the_deadline(server, loopback_allowed):
    """Each byte arrives well within the read timeout; the whole exchange is still bounded."""
    server.answer("/drip", body=b'{"padding": "' + b"x" * 100 + b'"}', drip=0.05)

    started = time.monotonic()
    with pytest.raises(OutboundRefused, match="within 1 s"):
        fetch(server.url("/drip"))
    assert time.monotonic() - started < 2


@pytest.mark.parametrize("length", [True, False], ids=["declared", "undeclared"])
def test_an_answer_over_the_size_cap_is_refused(server, outbound, length):
    outbound(OUTBOUND_ALLOWED_NETWORKS=["127.0.0.0/8"], OUTBOUND_MAX_BYTES=1000)
    server.answer("/huge", body=b"[" + b"0," * 5000 + b"0]", length=length)
    server.answer("/fits", body=b"[" + b"0," * 400 + b"0]", length=length)

    with pytest.raises(OutboundRefused, match="over the limit of 1000"):
        fetch(server.url("/huge"))
    assert len(fetch(server.url("/fits")).body) == 803


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/x", "file:///etc/passwd", "...", "http://", "http://a:99999/",
                                 "http://user:secret@127.0.0.1/"])
def test_what_is_no_http_url_is_refused(url, loopback_allowed):
    with pytest.raises(OutboundRefused):
        fetch(url)


def test_nothing_listening_is_a_refusal_not_an_error(loopback_allowed):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(OutboundRefused, match="did not answer"):
        fetch(f"http://127.0.0.1:{port}/")


def test_a_post_sends_its_body_and_headers(server, loopback_allowed):
    server.answer("/hook", status=202, body=b"")

    answer = fetch(server.url("/hook"), method="POST", body=b'{"a": 1}',
                   headers={"Content-Type": "application/json", "Request-Signature": "sig"})

    assert answer.status == 202
    arrived = server.requests[0]
    assert (arrived.method, arrived.body, arrived.headers["Request-Signature"]) == ("POST", b'{"a": 1}', "sig")


def test_an_address_refusing_the_connection_gives_way_to_the_next(server, outbound, monkeypatch):
    """localhost may resolve to ::1 and 127.0.0.1 with a server listening on one: as any client, the next is tried."""
    outbound(OUTBOUND_ALLOWED_NETWORKS=["127.0.0.0/8"])

    def two_answers(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.2", port)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    server.answer("/profile", body={})
    monkeypatch.setattr(socket, "getaddrinfo", two_answers)

    assert fetch(server.url("/profile", host="platform.example")).status == 200


def certificate_files(folder, host):
    """A CA (ca.pem) and a certificate it signed for `host` (host.pem, host.key)."""
    def name(text):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    def signed(subject, public_key, issuer, signing_key, *extensions):
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(public_key)
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=1))
                   .not_valid_after(datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)))
        for extension, critical in extensions:
            builder = builder.add_extension(extension, critical)
        return builder.sign(signing_key, hashes.SHA256())

    ca_key, host_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = signed(name("Test CA"), ca_key.public_key(), name("Test CA"), ca_key,
                (x509.BasicConstraints(ca=True, path_length=None), True))
    leaf = signed(name(host), host_key.public_key(), ca.subject, ca_key,
                  (x509.SubjectAlternativeName([x509.DNSName(host)]), False))
    (folder / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (folder / "host.pem").write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    (folder / "host.key").write_bytes(host_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))


def test_https_goes_to_the_checked_address_with_the_name_for_sni_and_the_certificate(
        tmp_path, outbound, monkeypatch):
    """The connection is to the pinned address, yet TLS checks the certificate against the URL's
    name: a name the certificate does not carry is refused, though it resolves to the same server."""
    outbound(OUTBOUND_ALLOWED_NETWORKS=["127.0.0.1/32"], OUTBOUND_TIMEOUT_SECONDS=2)
    certificate_files(tmp_path, "platform.example")
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))  # OpenSSL's default trust, read per context
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, port, *args, **kwargs: [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))])
    server = PlatformServer()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "host.pem", tmp_path / "host.key")
    server.httpd.socket = context.wrap_socket(server.httpd.socket, server_side=True)
    server.answer("/profile", body={"secure": True})

    with server:
        answer = fetch(f"https://platform.example:{server.port}/profile")
        with pytest.raises(OutboundRefused, match="hostname 'impostor.example' doesn't match 'platform.example'"):
            fetch(f"https://impostor.example:{server.port}/profile")

    assert answer.body == b'{"secure": true}'
    assert server.requests[0].headers["Host"] == f"platform.example:{server.port}"
