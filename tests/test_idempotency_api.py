"""Idempotency-Key on the agent API's POST calls, in process.

Same key and body → the stored answer again with `Idempotent-Replayed: true`; another body →
422; in flight → 409 with Retry-After; kept 24 hours; 5xx and retry-me answers never stored;
keys scoped per session, or per client address without one.
"""
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from acme.agents import AcmeProvider
from acme.models import ContactMessage
from agents_protocol.core.capabilities import register, unregister
from agents_protocol.core.errors import CapabilityError
from agents_protocol.http import idempotency
from agents_protocol.http.sessions import hash_token
from agents_protocol.models import (
    AgentSession,
    AuditEvent,
    Capability,
    IdempotencyRecord,
)
from cart.models import CartLine, Order
from tests.api_client import API, IN_PROCESS_URL, SESSION_PATH, AgentClient, assert_error, ok_data
from tests.factories import make_product

ADD = f"{API}/cart/add"
CONTACT = {"name": "Ada", "email": "ada@example.com", "message": "Do you ship to Lisbon?"}


@pytest.fixture
def agent(site_client):
    make_product(public_id="mug", stock=50)
    client = AgentClient(django_client=site_client)
    client.start_session(agent_name="idempotency-test")
    return client


def keyed(key):
    return {"Idempotency-Key": key}


def replayed(response):
    return response.headers.get("Idempotent-Replayed") == "true"


def test_the_same_key_and_body_replays_the_first_answer_and_adds_once(agent):
    first = agent.post(ADD, {"item_id": "mug", "quantity": 2}, headers=keyed("add-mug-1"))
    again = agent.post(ADD, {"item_id": "mug", "quantity": 2}, headers=keyed("add-mug-1"))

    assert ok_data(first)["quantity"] == 2 and not replayed(first)
    assert replayed(again) and again.status_code == 200
    assert again.json() == first.json()
    assert CartLine.objects.get().quantity == 2


def test_without_a_key_each_call_runs(agent):
    agent.add_to_cart("mug", 2)
    agent.add_to_cart("mug", 2)
    assert CartLine.objects.get().quantity == 4


def test_the_same_key_with_another_body_is_422_and_changes_nothing(agent):
    ok_data(agent.post(ADD, {"item_id": "mug", "quantity": 2}, headers=keyed("k-1")))
    conflict = agent.post(ADD, {"item_id": "mug", "quantity": 3}, headers=keyed("k-1"))
    assert_error(conflict, 422, "idempotency_conflict")
    assert CartLine.objects.get().quantity == 2


def test_the_same_key_on_another_endpoint_is_422(agent):
    ok_data(agent.post(ADD, {"item_id": "mug"}, headers=keyed("k-2")))
    assert_error(agent.post(f"{API}/checkout", {"item_id": "mug"}, headers=keyed("k-2")), 422, "idempotency_conflict")
    assert not Order.objects.exists()


def test_a_request_still_in_flight_is_409_with_retry_after(agent):
    session = AgentSession.objects.get(token_hash=hash_token(agent.token))
    body = {"item_id": "mug", "quantity": 1}
    claim = idempotency.begin(idempotency.scope_for(session, "127.0.0.1"), "slow-1",
                              idempotency.fingerprint("POST", ADD, "cart.add", body))
    assert isinstance(claim, idempotency.Claim)

    response = agent.post(ADD, body, headers=keyed("slow-1"))
    assert_error(response, 409, "idempotency_in_flight")
    assert int(response.headers["Retry-After"]) >= 1
    assert not CartLine.objects.exists()


@pytest.mark.parametrize("lease_seconds", [60, 300])
def test_a_request_in_flight_past_its_lease_was_abandoned_and_runs_again(agent, settings, lease_seconds):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "IDEMPOTENCY_LEASE_SECONDS": lease_seconds}
    session = AgentSession.objects.get(token_hash=hash_token(agent.token))
    body = {"item_id": "mug", "quantity": 1}
    idempotency.begin(idempotency.scope_for(session, "127.0.0.1"), "died-1", idempotency.fingerprint("POST", ADD, "cart.add", body))
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(seconds=lease_seconds - 5))
    assert_error(agent.post(ADD, body, headers=keyed("died-1")), 409, "idempotency_in_flight")  # within its lease

    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(seconds=lease_seconds))
    response = agent.post(ADD, body, headers=keyed("died-1"))
    assert ok_data(response)["quantity"] == 1 and not replayed(response)


def test_an_add_whose_answer_was_never_stored_is_never_run_again(agent, monkeypatch):
    """The add committed, then its worker died before the answer was kept (here: keeping it is
    skipped). Within the lease a retry is told the request is in flight; past it, that its
    outcome is unknown: never a second add."""
    monkeypatch.setattr(idempotency, "finish", lambda *args: None)
    first = agent.post(ADD, {"item_id": "mug", "quantity": 2}, headers=keyed("lost-1"))
    assert ok_data(first)["quantity"] == 2
    monkeypatch.undo()

    assert_error(agent.post(ADD, {"item_id": "mug", "quantity": 2}, headers=keyed("lost-1")), 409,
                 "idempotency_in_flight")
    IdempotencyRecord.objects.update(created_at=timezone.now() - idempotency.in_flight_lease())
    retry = agent.post(ADD, {"item_id": "mug", "quantity": 2}, headers=keyed("lost-1"))
    assert "cart.view" in assert_error(retry, 409, "idempotency_outcome_unknown")["error"]
    assert CartLine.objects.get().quantity == 2


def test_an_add_that_failed_after_its_change_keeps_its_key(agent, monkeypatch):
    """A 500 while answering, after the add committed: releasing the key would let the retry add again."""
    def failing_to_answer(*args, **kwargs):
        raise RuntimeError("the answer could not be written")

    monkeypatch.setattr(AcmeProvider, "cart_add", wrapped_then(AcmeProvider.cart_add, failing_to_answer))
    assert_error(agent.post(ADD, {"item_id": "mug", "quantity": 1}, headers=keyed("failed-1")), 500, "internal_error")
    monkeypatch.undo()
    assert CartLine.objects.get().quantity == 1  # the change its transaction committed

    IdempotencyRecord.objects.update(created_at=timezone.now() - idempotency.in_flight_lease())
    retry = agent.post(ADD, {"item_id": "mug", "quantity": 1}, headers=keyed("failed-1"))
    assert_error(retry, 409, "idempotency_outcome_unknown")
    assert CartLine.objects.get().quantity == 1


def wrapped_then(method, after):
    """`method`, then `after` raising once its change is made (and recorded) in its own transaction."""
    def wrapped(provider, context, *args, **kwargs):
        method(provider, context, *args, **kwargs)
        after()
    return wrapped


def test_keys_are_kept_24_hours_then_run_again_and_prune_removes_them(agent):
    ok_data(agent.post(ADD, {"item_id": "mug"}, headers=keyed("day-1")))
    record = IdempotencyRecord.objects.get()
    assert record.expires_at - record.created_at == timedelta(hours=24)

    IdempotencyRecord.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    rerun = agent.post(ADD, {"item_id": "mug"}, headers=keyed("day-1"))
    assert ok_data(rerun)["quantity"] == 2 and not replayed(rerun)

    IdempotencyRecord.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    ok_data(agent.post(ADD, {"item_id": "mug"}, headers=keyed("day-2")))
    call_command("agents_idempotency", "prune")
    (kept,) = IdempotencyRecord.objects.all()
    assert kept.expires_at > timezone.now()


def explode(call):
    raise RuntimeError("boom")


@pytest.fixture
def broken_post(agent):
    register("broken", explode)
    Capability.objects.create(name="broken", endpoint=f"{API}/broken", method="POST", position=40)
    yield f"{API}/broken"
    unregister("broken")


def test_a_5xx_answer_is_never_stored(agent, broken_post):
    for _attempt in range(2):
        response = agent.post(broken_post, {"a": 1}, headers=keyed("boom-1"))
        assert_error(response, 500, "internal_error")
        assert not replayed(response)
    assert not IdempotencyRecord.objects.exists()


def test_a_429_is_not_stored_under_its_key_the_same_key_runs_again(agent, monkeypatch):
    add_to_cart = AcmeProvider.cart_add
    calls = []

    def rate_limited_the_first_time(provider, context, item_id, quantity):
        calls.append(item_id)
        if len(calls) == 1:
            raise CapabilityError(429, "rate_limited", "Too many requests. Retry in 1 seconds.",
                                  headers={"Retry-After": "1"})
        return add_to_cart(provider, context, item_id, quantity)

    monkeypatch.setattr(AcmeProvider, "cart_add", rate_limited_the_first_time)
    first = agent.post(ADD, {"item_id": "mug", "quantity": 2}, headers=keyed("limited-1"))
    again = agent.post(ADD, {"item_id": "mug", "quantity": 2}, headers=keyed("limited-1"))

    assert_error(first, 429, "rate_limited")
    assert ok_data(again)["quantity"] == 2 and not replayed(again)
    assert calls == ["mug", "mug"] and CartLine.objects.get().quantity == 2
    assert list(IdempotencyRecord.objects.values_list("response_status", flat=True)) == [200]


def test_session_create_ignores_the_key_so_no_other_client_can_get_its_token(site_client):
    """Two agents behind one address (a NAT, a cloud's egress) sending the same body with the same
    key (derived from the request, as some clients make them) get two sessions, not one token."""
    first, again = (AgentClient(django_client=site_client).post(SESSION_PATH, {"agent_name": "retrying"},
                                                                headers=keyed("create-once")) for _agent in range(2))

    assert first.status_code == again.status_code == 201 and not replayed(again)
    assert again.json()["data"]["session_token"] != first.json()["data"]["session_token"]
    assert AgentSession.objects.count() == 2
    assert not IdempotencyRecord.objects.exists()


def test_a_replayed_checkout_gives_back_the_same_link_and_one_order(agent):
    agent.add_to_cart("mug", 1)
    first = ok_data(agent.post(f"{API}/checkout", headers=keyed("pay-1")))
    again = agent.post(f"{API}/checkout", headers=keyed("pay-1"))
    assert replayed(again) and ok_data(again)["checkout_url"] == first["checkout_url"]
    assert Order.objects.count() == 1
    assert first["checkout_url"].rsplit("/", 2)[-2] not in str(list(IdempotencyRecord.objects.values()))


def test_a_sessionless_contact_is_sent_once_per_key_and_address(site_client):
    anonymous = AgentClient(django_client=site_client)
    for _attempt in range(3):
        ok_data(anonymous.post(f"{API}/contact", CONTACT, headers=keyed("contact-1")))
    assert ContactMessage.objects.count() == 1
    assert len(mail.outbox) == 1


def test_keys_are_scoped_per_session_one_agent_cannot_replay_anothers(agent, site_client):
    ok_data(agent.post(ADD, {"item_id": "mug", "quantity": 2}, headers=keyed("shared-key")))
    other = AgentClient(django_client=site_client)
    other.start_session()

    response = other.post(ADD, {"item_id": "mug", "quantity": 2}, headers=keyed("shared-key"))
    assert not replayed(response)
    assert ok_data(response)["cart"]["items"][0]["quantity"] == 2
    assert sorted(CartLine.objects.values_list("quantity", flat=True)) == [2, 2]


def test_sessionless_keys_are_scoped_per_client_address(http, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "TRUSTED_PROXY_COUNT": 1}
    for address in ("198.51.100.1", "198.51.100.2"):
        response = http.post(f"{IN_PROCESS_URL}{API}/contact", json=CONTACT, timeout=10,
                             headers={**keyed("same-key"), "X-Forwarded-For": address})
        assert ok_data(response)["received"] is True and not replayed(response)
    assert ContactMessage.objects.count() == 2


@pytest.mark.parametrize("key", ["", "x" * 256, "has space", "caf\u00e9"])
def test_a_malformed_key_is_400_and_nothing_runs(agent, key):
    response = agent.http.post(f"{agent.base_url}{ADD}", json={"item_id": "mug"}, timeout=10,
                               headers={"Authorization": f"Bearer {agent.token}",
                                        "Idempotency-Key": key.encode("utf-8")})
    assert_error(response, 400, "invalid_idempotency_key")
    assert not CartLine.objects.exists()


def test_the_key_is_ignored_on_put_which_is_idempotent_anyway(agent):
    agent.add_to_cart("mug", 1)
    for _attempt in range(2):
        response = agent.put(f"{API}/cart/update", {"item_id": "mug", "quantity": 3}, headers=keyed("put-1"))
        assert ok_data(response)["quantity"] == 3 and not replayed(response)
    assert not IdempotencyRecord.objects.exists()


def test_a_replay_is_recorded_in_the_audit_trail_as_replayed(agent):
    for _attempt in range(2):
        ok_data(agent.post(ADD, {"item_id": "mug"}, headers=keyed("audit-1")))
    results = list(AuditEvent.objects.filter(capability="cart.add").values_list("policy_result", flat=True))
    assert results == ["allow", "allow:replayed"]
