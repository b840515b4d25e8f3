"""max_sessions that a developer testing from one machine does not hit (issue 39, item 6): 20 by
default, and at the limit a new session ends the one idle longest, once it has made no call for
SESSION_IDLE_SECONDS; the 429 says so. In process, rolled back."""
from datetime import timedelta

import pytest
from django.utils import timezone

from agents_protocol.core.models import AgentSession, RateLimitConfig
from tests.api_client import API, SESSION_PATH

pytestmark = pytest.mark.django_db


def create(client):
    return client.post(SESSION_PATH, content_type="application/json")


def token_of(response):
    assert response.status_code == 201, response.content
    return response.json()["data"]["session_token"]


@pytest.fixture
def two_per_address():
    config = RateLimitConfig.load()
    config.max_sessions = 2
    config.save()


def idle_for(seconds, token=None):
    """Make every live session (or the one of `token`) look idle since `seconds` ago."""
    since = timezone.now() - timedelta(seconds=seconds)
    AgentSession.objects.filter(ended_at=None).update(created_at=since, last_call_at=since)


def test_an_address_may_hold_twenty_sessions_after_migrate():
    assert RateLimitConfig.load().max_sessions == 20


def test_at_the_limit_a_new_session_ends_the_one_idle_longest(client, two_per_address):
    oldest, newer = token_of(create(client)), token_of(create(client))
    idle_for(301)
    client.get(f"{API}/cart/view", HTTP_AUTHORIZATION=f"Bearer {newer}")  # newer is busy again

    third = create(client)
    assert third.status_code == 201
    ended = client.get(f"{API}/cart/view", HTTP_AUTHORIZATION=f"Bearer {oldest}")
    assert (ended.status_code, ended.json()["code"]) == (401, "session_ended")
    assert client.get(f"{API}/cart/view", HTTP_AUTHORIZATION=f"Bearer {newer}").status_code == 200
    assert AgentSession.objects.get(end_reason="idle")


def test_at_the_limit_with_none_idle_the_429_says_when_one_will_be(client, two_per_address):
    token_of(create(client))
    token_of(create(client))
    idle_for(100)

    refused = create(client)
    assert refused.status_code == 429
    body = refused.json()
    assert body["code"] == "too_many_sessions"
    assert "none has been idle for 300 seconds" in body["error"]
    assert 195 <= int(refused["Retry-After"]) <= 200  # when the first has idled 300 seconds, well before expiry


def test_a_call_marks_its_session_busy(client):
    token = token_of(create(client))
    idle_for(600)
    client.get(f"{API}/cart/view", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert timezone.now() - AgentSession.objects.get().last_call_at < timedelta(seconds=5)
