"""UCP platform profiles (agents_protocol/outbound/profiles.py): fetched, checked, cached, and the
version negotiated; every profile that cannot be used is a 400 refusal, never an exception."""
import uuid

import pytest

from agents_protocol.core.errors import CapabilityError
from agents_protocol.outbound.profiles import (
    UCP_VERSION,
    negotiated_version,
    platform_profile_of,
    ucp_agent_fields,
    webhook_url,
)
from tests.platform_server import PlatformServer

SPEC_PROFILE = {
    "ucp": {
        "version": "2026-01-11",
        "services": {"dev.ucp.shopping": [{"version": "2026-01-11", "transport": "rest"}]},
        "capabilities": {
            "dev.ucp.shopping.checkout": [{"version": "2026-01-11"}],
            "dev.ucp.shopping.order": [{"version": "2026-01-11",
                                        "config": {"webhook_url": "https://platform.example/webhooks/ucp/orders"}}],
        },
        "payment_handlers": {},
    },
    "signing_keys": [{"kid": "platform_2025", "kty": "EC", "crv": "P-256", "x": "x", "y": "y"}],
}
# What the official suite's mock agent serves (shopping-agent-test.json): capabilities as a list.
SUITE_PROFILE = {"ucp": {"version": "2026-01-11", "capabilities": [
    {"name": "dev.ucp.shopping.order", "version": "2026-01-11",
     "config": {"webhook_url": "http://localhost:8284/webhooks/partners/test_partner/events/order"}}]}}


@pytest.fixture
def server():
    with PlatformServer() as running:
        yield running


@pytest.fixture
def loopback_allowed(settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "OUTBOUND_ALLOWED_NETWORKS": ["127.0.0.0/8"],
                                "OUTBOUND_TIMEOUT_SECONDS": 1, "OUTBOUND_MAX_BYTES": 4096}


def serve(server, body, **canned):
    """Serve `body` at a path of its own (cache keys are URLs) and return the UCP-Agent header naming it."""
    path = f"/profiles/{uuid.uuid4().hex}.json"
    server.answer(path, body=body, **canned)
    return f'profile="{server.url(path)}"'


def refusal(header):
    with pytest.raises(CapabilityError) as raised:
        platform_profile_of(header)
    return raised.value


def test_a_spec_profile_is_fetched_and_its_webhook_found(server, loopback_allowed):
    profile = platform_profile_of(serve(server, SPEC_PROFILE))

    assert profile["ucp"]["version"] == "2026-01-11"
    assert webhook_url(profile) == "https://platform.example/webhooks/ucp/orders"
    assert profile["signing_keys"][0]["kid"] == "platform_2025"


def test_the_suites_list_of_capabilities_reads_as_the_registry(server, loopback_allowed):
    profile = platform_profile_of(serve(server, SUITE_PROFILE))

    assert list(profile["ucp"]["capabilities"]) == ["dev.ucp.shopping.order"]
    assert webhook_url(profile) == "http://localhost:8284/webhooks/partners/test_partner/events/order"


def test_a_profile_is_fetched_once_while_cached(server, loopback_allowed):
    header = serve(server, SPEC_PROFILE)

    assert platform_profile_of(header) == platform_profile_of(header)
    assert len(server.requests) == 1


def test_the_profiles_own_max_age_shortens_the_cache(server, loopback_allowed):
    header = serve(server, SPEC_PROFILE, headers={"Content-Type": "application/json", "Cache-Control": "max-age=0"})

    platform_profile_of(header)
    platform_profile_of(header)
    assert len(server.requests) == 2


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "169.254.169.254", "10.1.2.3", "[::1]"])
def test_a_private_profile_url_is_refused_without_a_request(host, server):
    refused = refusal(f'profile="http://{host}:{server.port}/profile.json"')

    assert (refused.status, refused.code) == (400, "invalid_profile")
    assert "not a public address" in refused.message
    assert server.requests == []


def test_a_refusal_is_remembered_so_a_slow_url_costs_one_timeout(server, loopback_allowed):
    header = serve(server, SPEC_PROFILE, delay=2)

    assert "did not answer" in refusal(header).message
    assert "did not answer" in refusal(header).message
    assert len(server.requests) == 1


@pytest.mark.parametrize(("body", "canned", "reason"), [
    (b"[" * 3000 + b"]" * 3000, {}, "over the limit of 4096"),
    (b"<html>hi</html>", {"headers": {"Content-Type": "text/html"}}, "text/html, not JSON"),
    (b'{"ucp": ', {}, "not valid JSON"),
    (b"[" * 1500 + b"]" * 1500, {}, "not valid JSON"),
    ([1, 2], {}, "not a UCP platform profile"),
    ({"ucp": {"version": "soon"}}, {}, "not a UCP platform profile (ucp/version"),
    ({"ucp": {"version": "2026-01-11", "capabilities": "all"}}, {}, "not a UCP platform profile"),
    ({"ucp": {"version": "2026-01-11"}, "signing_keys": [{"kid": 1}]}, {}, "not a UCP platform profile"),
    ({}, {"status": 500}, "it answered 500"),
    ({}, {"status": 302, "headers": {"Location": "http://169.254.169.254/"}}, "not a public address"),
], ids=["huge", "html", "truncated", "deep", "array", "bad-version", "bad-capabilities", "bad-key", "500",
        "redirect-to-metadata"])
def test_an_unusable_profile_is_a_400_refusal(body, canned, reason, server, loopback_allowed, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "OUTBOUND_MAX_BYTES": 4096}
    refused = refusal(serve(server, body, **canned))

    assert (refused.status, refused.code) == (400, "invalid_profile")
    assert reason in refused.message


def test_a_profile_value_that_is_no_url_names_nothing_to_fetch():
    """The official suite's protocol_test sends profile="..." with a version and expects its checkout served."""
    assert platform_profile_of('profile="..."; version="2026-01-11"') is None
    assert platform_profile_of("") is None


@pytest.mark.parametrize("header", ['profile="..."; version="2099-01-01"', 'profile="..."; version="2026-01-12"',
                                    'profile="..."; version="latest"'])
def test_a_newer_or_unknown_version_in_the_header_is_unsupported(header):
    refused = refusal(header)

    assert (refused.status, refused.code) == (400, "version_unsupported")


def test_a_profile_of_a_newer_version_is_unsupported(server, loopback_allowed):
    refused = refusal(serve(server, {"ucp": {"version": "2027-01-01"}}))

    assert refused.code == "version_unsupported"
    assert refused.message == f"Version 2027-01-01 is not supported. This business implements version {UCP_VERSION}."


def test_the_header_version_is_checked_before_any_fetch(server, loopback_allowed):
    header = serve(server, SPEC_PROFILE) + '; version="2099-01-01"'

    assert refusal(header).code == "version_unsupported"
    assert server.requests == []


@pytest.mark.parametrize("version", [None, "2025-10-01", UCP_VERSION])
def test_an_older_or_equal_version_is_processed_at_ours(version):
    assert negotiated_version(version) == UCP_VERSION


def test_ucp_agent_fields_read_rfc_8941_dictionary_syntax():
    assert ucp_agent_fields('profile="https://a.example/p.json"; version="2026-01-11"') == {
        "profile": "https://a.example/p.json", "version": "2026-01-11"}
    assert ucp_agent_fields('profile="https://a.example/\\"q\\".json", version=2026-01-11') == {
        "profile": 'https://a.example/"q".json', "version": "2026-01-11"}
