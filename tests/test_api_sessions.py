"""Sessions in process: create, end, hard TTL, hashed tokens, the three auth headers, limits, 401s."""
import hashlib
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from agents_protocol.http.sessions import hash_token, session_by_token_hash
from agents_protocol.models import (
    AgentSession,
    AuditConfig,
    Capability,
    RateLimitConfig,
    SessionConfig,
)
from tests.api_client import (
    API,
    SESSION_PATH,
    AgentClient,
    assert_error,
    auth_headers,
    ok_data,
)
from tests.factories import make_agent_session, make_product

CART_VIEW = f"{API}/cart/view"
SESSION_CAPABILITIES = ["cart.add", "cart.view", "cart.update", "cart.remove", "checkout"]


@pytest.fixture
def agent(site_client):
    return AgentClient(django_client=site_client)


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_create_answers_201_with_token_id_deadline_and_capabilities(agent):
    before = timezone.now()
    session = agent.start_session(agent_name="shopper", agent_version="1.2", purpose="buy a mug")

    assert set(session) == {"session_token", "session_id", "expires_at", "capabilities", "ttl_seconds", "audit",
                            "inspect_url"}
    assert session["audit"] is True  # session.md: `"audit": true` when audit is enabled (the default)
    assert len(session["session_token"]) >= 43  # 32 random bytes, base64url
    assert session["session_id"] != session["session_token"]
    assert session["ttl_seconds"] == 1800
    expires_at = parse_time(session["expires_at"])
    assert before + timedelta(seconds=1799) <= expires_at <= timezone.now() + timedelta(seconds=1800)
    # session.md: "The session-required capabilities available in this session."
    assert session["capabilities"] == ["cart.add", "cart.view", "cart.update", "cart.remove", "checkout", "order.status"]
    stored = AgentSession.objects.get(public_id=session["session_id"])
    assert (stored.agent_name, stored.agent_version, stored.purpose) == ("shopper", "1.2", "buy a mug")


def test_create_lists_only_enabled_capabilities_and_uses_the_configured_ttl(agent):
    Capability.objects.filter(name="order.status").update(enabled=False)
    config = SessionConfig.load()
    config.ttl_seconds = 600
    config.save()  # the update() above bypassed signals; this save bumps the revision
    session = agent.start_session()
    assert "order.status" not in session["capabilities"] and "cart.add" in session["capabilities"]
    assert session["ttl_seconds"] == 600


def test_create_says_whether_the_session_is_audited(agent):
    """session.md: the create answer includes `"audit": true` when audit is enabled; `false` here when it is off."""
    assert agent.start_session()["audit"] is True
    config = AuditConfig.load()
    config.enabled = False
    config.save()
    unaudited = agent.start_session()
    assert unaudited["audit"] is False
    assert AgentSession.objects.get(public_id=unaudited["session_id"]).audited is False


def test_agent_fields_that_are_too_long_or_not_text_are_refused(agent):
    too_long = agent.post(SESSION_PATH, {"agent_name": "x" * 201})
    assert assert_error(too_long, 400, "invalid_params")["fields"] == {"agent_name": "Must be at most 200 characters."}
    assert "purpose" in assert_error(agent.post(SESSION_PATH, {"purpose": 7}), 400, "invalid_params")["fields"]


def test_the_raw_token_is_stored_nowhere_only_its_sha256(agent):
    session = agent.start_session()
    token = session["session_token"]
    row = AgentSession.objects.filter(public_id=session["session_id"]).values().get()
    assert row["token_hash"] == hashlib.sha256(token.encode()).hexdigest()
    assert not any(token in str(value) for value in row.values())


@pytest.mark.parametrize("header", ["Authorization", "X-Session-Token", "X-Agent-Session"])
def test_each_of_the_three_auth_headers_opens_the_session(agent, header):
    token = agent.start_session()["session_token"]
    response = agent.http.get(agent.base_url + CART_VIEW, headers=auth_headers(token, header), timeout=10)
    assert ok_data(response)["items"] == []


@pytest.mark.parametrize("scheme", ["bearer", "BEARER", "bEaReR"])
def test_the_authorization_scheme_is_case_insensitive(agent, scheme):
    token = agent.start_session()["session_token"]
    response = agent.http.get(agent.base_url + CART_VIEW, headers={"Authorization": f"{scheme} {token}"}, timeout=10)
    assert ok_data(response)["items"] == []


def test_delete_ends_the_session_and_names_its_audit_url(agent):
    session = agent.start_session()
    ended = ok_data(agent.delete(SESSION_PATH))

    assert ended["ended"] is True and ended["session_id"] == session["session_id"]
    assert parse_time(ended["ended_at"]) <= timezone.now()
    assert set(ended) == {"ended", "session_id", "ended_at", "audit_url"}
    stored = AgentSession.objects.get(public_id=session["session_id"])
    assert stored.end_reason == "deleted"
    body = assert_error(agent.get(CART_VIEW), 401, "session_ended")
    assert f"POST {SESSION_PATH}" in body["error"]
    assert_error(agent.delete(SESSION_PATH), 401, "session_ended")


def test_delete_without_a_token_is_401(agent):
    assert_error(agent.delete(SESSION_PATH), 401, "session_required")


def test_the_deadline_is_hard_activity_never_extends_it(agent):
    session = agent.start_session()
    stored = AgentSession.objects.get(public_id=session["session_id"])
    deadline = stored.expires_at
    for _ in range(3):
        ok_data(agent.get(CART_VIEW))
    stored.refresh_from_db()
    assert stored.expires_at == deadline
    assert deadline.replace(microsecond=0) == parse_time(session["expires_at"])

    AgentSession.objects.filter(pk=stored.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    body = assert_error(agent.get(CART_VIEW), 401, "session_expired")
    assert "Create a new session" in body["error"]
    stored.refresh_from_db()
    assert stored.end_reason == "expired"


def test_a_session_created_with_ttl_60_expires_60_seconds_after_creation(agent):
    config = SessionConfig.load()
    config.ttl_seconds = 60
    config.save()
    session = agent.start_session()
    stored = AgentSession.objects.get(public_id=session["session_id"])
    assert stored.expires_at - stored.created_at == timedelta(seconds=60)

    AgentSession.objects.filter(pk=stored.pk).update(
        created_at=stored.created_at - timedelta(seconds=59), expires_at=stored.expires_at - timedelta(seconds=59)
    )
    ok_data(agent.get(CART_VIEW))
    AgentSession.objects.filter(pk=stored.pk).update(expires_at=stored.expires_at - timedelta(seconds=61))
    assert_error(agent.get(CART_VIEW), 401, "session_expired")


@pytest.mark.parametrize("capability", SESSION_CAPABILITIES)
def test_every_session_capability_without_a_token_is_401_session_required(agent, capability):
    route = Capability.objects.get(name=capability)
    body = assert_error(agent.request(route.method, route.endpoint), 401, "session_required")
    assert "Create a new session" in body["error"]
    assert body["error"].count(SESSION_PATH) == 1


@pytest.mark.parametrize("header", ["Authorization", "X-Session-Token", "X-Agent-Session"])
@pytest.mark.parametrize("garbage", ["not-a-token", "x" * 4096, "\xff\xfe-latin-1-token", "' OR 1=1 --"])
def test_garbage_tokens_in_any_header_are_401_session_invalid(agent, header, garbage):
    response = agent.http.get(agent.base_url + CART_VIEW, headers=auth_headers(garbage, header), timeout=10)
    assert "Create a new session" in assert_error(response, 401, "session_invalid")["error"]
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_the_public_session_id_is_not_a_token(agent):
    agent.token = agent.start_session()["session_id"]
    assert_error(agent.get(CART_VIEW), 401, "session_invalid")


@pytest.mark.parametrize("value", ["Basic {token}", "{token}", "Bearer"])
def test_an_authorization_header_that_is_not_bearer_and_a_token_says_so(agent, value):
    token = agent.start_session()["session_token"]
    headers = {"Authorization": value.format(token=token)}
    refused = agent.http.get(agent.base_url + CART_VIEW, headers=headers, timeout=10)
    body = assert_error(refused, 401, "session_invalid")
    assert body["error"].startswith("The Authorization header must be the word Bearer, a space and the session token.")
    searched = agent.http.get(agent.base_url + f"{API}/search", params={"q": "mug"}, headers=headers, timeout=10)
    assert searched.status_code == 200  # a capability that needs no session still answers, as for a bad token


def test_max_sessions_per_address_is_429_with_retry_after_until_the_first_live_session_expires(agent):
    limits = RateLimitConfig.load()
    limits.max_sessions = 2
    limits.save()
    agent.start_session()
    make_agent_session(expires_at=timezone.now() + timedelta(seconds=300))  # opened last, expires first

    refused = agent.post(SESSION_PATH)
    assert_error(refused, 429, "too_many_sessions")
    retry_after = refused.headers["Retry-After"]
    assert retry_after.isdigit() and 290 <= int(retry_after) <= 300


def test_ended_and_expired_sessions_do_not_count_towards_max_sessions(agent):
    limits = RateLimitConfig.load()
    limits.max_sessions = 2
    limits.save()
    make_agent_session(expires_at=timezone.now() - timedelta(seconds=1))
    make_agent_session(ended_at=timezone.now(), end_reason="deleted")
    agent.start_session()
    ok_data(agent.delete(SESSION_PATH))
    agent.start_session()
    agent.start_session()
    assert_error(agent.post(SESSION_PATH), 429, "too_many_sessions")


def test_max_sessions_counts_per_client_address(agent):
    limits = RateLimitConfig.load()
    limits.max_sessions = 1
    limits.save()
    make_agent_session(client_address="203.0.113.9")
    agent.start_session()
    assert_error(agent.post(SESSION_PATH), 429, "too_many_sessions")


def test_a_session_capability_with_the_token_of_an_expired_factory_session_is_401(agent):
    expired = make_agent_session(expires_at=timezone.now() - timedelta(minutes=5))
    agent.token = expired.raw_token
    assert_error(agent.post(f"{API}/cart/add", {"item_id": make_product().public_id}), 401, "session_expired")


@pytest.mark.django_db
def test_the_session_of_a_token_loads_as_the_orm_loads_it():
    made = make_agent_session()
    AgentSession.objects.filter(pk=made.pk).update(ended_at=timezone.now(), end_reason="deleted", event_count=3,
                                                   audited=True, shown_cart={"lines": [{"id": "p1", "quantity": 2}]})
    loaded = session_by_token_hash(hash_token(made.raw_token))
    expected = AgentSession.objects.get(pk=made.pk)
    assert [getattr(loaded, field.attname) for field in AgentSession._meta.concrete_fields] == [
        getattr(expected, field.attname) for field in AgentSession._meta.concrete_fields]
    assert timezone.is_aware(loaded.expires_at) and timezone.is_aware(loaded.ended_at)
    assert loaded.audited is True and loaded.shown_cart == {"lines": [{"id": "p1", "quantity": 2}]}
    assert session_by_token_hash(hash_token("no such token")) is None


@pytest.mark.django_db
def test_a_database_time_zone_is_the_zone_its_datetimes_load_in(settings):
    made = make_agent_session()
    assert session_by_token_hash(hash_token(made.raw_token)).expires_at.utcoffset() == timedelta(0)  # UTC, kept
    zoned = {**settings.DATABASES, "default": {**settings.DATABASES["default"], "TIME_ZONE": "Asia/Tokyo"}}
    with pytest.warns(UserWarning, match="Overriding setting DATABASES"):  # Django's, for any DATABASES change
        settings.DATABASES = zoned
    loaded = session_by_token_hash(hash_token(made.raw_token))
    assert loaded.expires_at.utcoffset() == timedelta(hours=9)
