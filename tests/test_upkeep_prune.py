"""Upkeep of a public demo: what agent traffic leaves behind is bounded by the retention settings.

Traffic is played (in process) for several days of a simulated calendar: after each day's
sessions, the rows that day created are moved back to that day (every timestamp the prune
commands read; the audit events keep the times they were hashed with, so the trails stay
what was signed). Then `shop_prune` and `agents_prune` run as cron runs them, and every table
that grows with agent traffic holds only the days its retention keeps, and every remaining
trail verifies with the published key.
"""
from datetime import timedelta

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.db.models import F
from django.utils import timezone

from acme.models import ContactMessage
from agents_protocol.activity.recorder import calls
from agents_protocol.audit import verify
from agents_protocol.models import AgentCall, AgentSession, AuditArtifact, AuditEvent, CheckoutHandoff, IdempotencyRecord
from cart.models import Cart, CartLine, Order, OrderLine
from catalog.demo import load_demo_catalog
from tests.api_client import API, IN_PROCESS_URL, SESSION_PATH, AgentClient, ok_data

RETENTION = {"AUDIT_RETENTION_DAYS": 30, "ACTIVITY_RETENTION_DAYS": 14}
ORDER_RETENTION_DAYS = CONTACT_RETENTION_DAYS = 20
DAYS_AGO = (60, 31, 25, 12, 3, 0)  # the simulated calendar: each a day of traffic
SESSIONS_A_DAY = 3


@pytest.fixture
def shop(http, settings, tmp_path):
    """The demo shop in process, with short retention; returns `http` to reach it."""
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, **RETENTION, "ACTIVITY_BUFFER_SIZE": 1,
                                "SIGNING_KEY": None, "SIGNING_KEY_FILE": tmp_path / "audit_signing_key"}
    settings.ORDER_RETENTION_DAYS = ORDER_RETENTION_DAYS
    settings.CONTACT_RETENTION_DAYS = CONTACT_RETENTION_DAYS
    load_demo_catalog()
    return http


def play_session(http, number):
    """One agent's visit: a search, a cart, an Idempotency-Key, a checkout or a contact message,
    and an end (two of three end it themselves; the third is left to expire)."""
    agent = AgentClient(django_client=http.django_client)
    agent.start_session(agent_name=f"agent-{number % 2}")
    ok_data(agent.get(f"{API}/search", {"q": "mug"}))
    ok_data(agent.post(f"{API}/cart/add", {"item_id": "mug-celadon", "quantity": 1},
                       headers={"Idempotency-Key": f"add-{number}"}))
    if number % 2:
        ok_data(agent.post(f"{API}/checkout"))
    else:
        ok_data(agent.post(f"{API}/contact", {"name": "Ada", "email": "ada@example.com", "message": "Hello there"}))
    if number % 3:
        ok_data(agent.delete(SESSION_PATH))


def move_back(days, since):
    """Move every row created since `since` (primary keys above it) back by `days` days."""
    shift = timedelta(days=days)
    AgentSession.objects.filter(pk__gt=since["session"]).update(
        created_at=F("created_at") - shift, expires_at=F("expires_at") - shift, ended_at=F("ended_at") - shift)
    AuditArtifact.objects.filter(session_id__gt=since["session"]).update(sealed_at=F("sealed_at") - shift)
    CheckoutHandoff.objects.filter(session_id__gt=since["session"]).update(created_at=F("created_at") - shift)
    Order.objects.filter(pk__gt=since["order"]).update(
        created=F("created") - shift, updated=F("updated") - shift, expires_at=F("expires_at") - shift)
    Cart.objects.filter(pk__gt=since["cart"]).update(created=F("created") - shift, updated=F("updated") - shift)
    ContactMessage.objects.filter(pk__gt=since["contact"]).update(received=F("received") - shift)
    IdempotencyRecord.objects.filter(pk__gt=since["key"]).update(
        created_at=F("created_at") - shift, expires_at=F("expires_at") - shift)
    AgentCall.objects.filter(pk__gt=since["call"]).update(at=F("at") - shift, day=F("day") - shift)


def high_water_marks():
    return {name: model.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            for name, model in [("session", AgentSession), ("order", Order), ("cart", Cart),
                                ("contact", ContactMessage), ("key", IdempotencyRecord), ("call", AgentCall)]}


def play_calendar(http):
    """Each simulated day's traffic; returns {days_ago: ids of the sessions of that day}."""
    sessions_of = {}
    for day, days_ago in enumerate(DAYS_AGO):
        since = high_water_marks()
        for visit in range(SESSIONS_A_DAY):
            play_session(http, day * SESSIONS_A_DAY + visit)
        calls.flush()
        move_back(days_ago, since)
        sessions_of[days_ago] = set(AgentSession.objects.filter(pk__gt=since["session"]).values_list("pk", flat=True))
    return sessions_of


def kept(days_ago, retention):
    return days_ago < retention


def test_a_calendar_of_traffic_pruned_keeps_only_what_retention_says_and_every_trail_verifies(shop):
    sessions_of = play_calendar(shop)
    assert AgentSession.objects.count() == len(DAYS_AGO) * SESSIONS_A_DAY

    call_command("shop_prune")
    call_command("agents_prune")

    # Sessions (with their trails and handoffs): those that ended within AUDIT_RETENTION_DAYS.
    # Today's session left to expire is still live; the older ones left to expire were sealed.
    recent_days = [d for d in DAYS_AGO if kept(d, RETENTION["AUDIT_RETENTION_DAYS"])]
    expected_sessions = set().union(*(sessions_of[d] for d in recent_days))
    assert set(AgentSession.objects.values_list("pk", flat=True)) == expected_sessions
    assert not AgentSession.objects.filter(ended_at__isnull=True, expires_at__lte=timezone.now()).exists()
    assert set(AuditEvent.objects.values_list("session_id", flat=True)) == expected_sessions
    assert set(CheckoutHandoff.objects.values_list("session_id", flat=True)) <= expected_sessions

    # Orders and contact messages: ORDER_RETENTION_DAYS / CONTACT_RETENTION_DAYS; carts go with
    # their orders or their sessions.
    order_days = [d for d in DAYS_AGO if kept(d, ORDER_RETENTION_DAYS)]
    assert Order.objects.count() == sum(1 for d in order_days for n in range(SESSIONS_A_DAY)
                                        if (DAYS_AGO.index(d) * SESSIONS_A_DAY + n) % 2)
    assert not Order.objects.filter(agent_session__isnull=True).exists()
    assert set(Cart.objects.values_list("agent_session_id", flat=True)) <= expected_sessions
    assert not OrderLine.objects.exclude(order__in=Order.objects.all()).exists()
    assert not CartLine.objects.exclude(cart__in=Cart.objects.all()).exists()
    oldest_message = timezone.now() - timedelta(days=CONTACT_RETENTION_DAYS)
    assert ContactMessage.objects.exists()
    assert not ContactMessage.objects.filter(received__lt=oldest_message).exists()

    # Idempotency-Keys: 24 hours; activity calls: ACTIVITY_RETENTION_DAYS.
    assert IdempotencyRecord.objects.count() == SESSIONS_A_DAY  # today's only
    oldest_day = timezone.localdate() - timedelta(days=RETENTION["ACTIVITY_RETENTION_DAYS"])
    assert AgentCall.objects.exists() and not AgentCall.objects.filter(day__lt=oldest_day).exists()
    assert set(AgentCall.objects.values_list("day", flat=True)) == {
        timezone.localdate() - timedelta(days=d) for d in DAYS_AGO if kept(d, RETENTION["ACTIVITY_RETENTION_DAYS"])}

    published_key = shop.get(f"{IN_PROCESS_URL}/.well-known/agents.json", timeout=10).json()["audit"]["public_key"]
    artifacts = AuditArtifact.objects.all()
    assert artifacts.count() == len(expected_sessions) - 1  # all but today's live one
    for artifact in artifacts:
        assert verify(artifact.body, published_key).ok, artifact.session_id


def test_pruning_again_changes_nothing_and_the_shop_keeps_working(shop):
    play_calendar(shop)
    call_command("shop_prune")
    call_command("agents_prune")
    counts = {model: model.objects.count() for model in (AgentSession, AuditEvent, Order, Cart, ContactMessage,
                                                         IdempotencyRecord, AgentCall)}
    call_command("shop_prune")
    call_command("agents_prune")
    assert {model: model.objects.count() for model in counts} == counts
    play_session(shop, 1)  # checks out: every table still takes new rows


def test_expired_browser_sessions_go_with_the_details_a_human_typed(db):
    """A checkout page keeps what its human typed in the browser session: shop_prune clears the
    sessions past their age, as Django's clearsessions does, and keeps the others."""
    expired, current = SessionStore(), SessionStore()
    for store in (expired, current):
        store["handoff-details"] = {"name": "Ada Lovelace", "shipping_address": "12 Analytical Row"}
        store.create()
    Session.objects.filter(session_key=expired.session_key).update(expire_date=timezone.now() - timedelta(seconds=1))
    call_command("shop_prune")
    assert list(Session.objects.values_list("session_key", flat=True)) == [current.session_key]
