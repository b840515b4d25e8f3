"""UCP order events to the platform's webhook (agents_protocol/outbound/webhooks.py): enqueued in
the order change's transaction, signed as the order capability says, retried with backoff,
dropped when too old. The task runs in process; the platform is a server on 127.0.0.1."""
import json
import signal
import uuid
from datetime import timedelta

import jwt
import pytest
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from agents_protocol.outbound.signing import public_jwk
from agents_protocol.outbound.webhooks import DeliveryFailed, deliver_order_event, enqueue_order_event, retry_delay
from tests.platform_server import PlatformServer

EVENT = {"event_type": "order_placed", "checkout_id": "chk_1", "order": {"id": "ord_1", "line_items": []}}


@pytest.fixture
def platform(settings):
    """A platform on 127.0.0.1 whose profile names its webhook; `platform.profile_url` is that profile."""
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "OUTBOUND_ALLOWED_NETWORKS": ["127.0.0.0/8"],
                                "OUTBOUND_TIMEOUT_SECONDS": 1}
    with PlatformServer() as server:
        server.profile_url = server.url(f"/profiles/{uuid.uuid4().hex}.json")
        server.answer(server.profile_url.split(str(server.port), 1)[1], body={"ucp": {
            "version": "2026-01-11",
            "capabilities": {"dev.ucp.shopping.order": [
                {"version": "2026-01-11", "config": {"webhook_url": server.url("/webhooks/orders")}}]}}})
        server.answer("/webhooks/orders", body={"status": "ok"})
        yield server


def webhook_calls(server):
    return [arrived for arrived in server.requests if arrived.path == "/webhooks/orders"]


def queued():
    return list(DBTaskResult.objects.filter(task_path=deliver_order_event.module_path).order_by("enqueued_at"))


def run(task_row):
    """Run one enqueued delivery as the worker would: the task's function with the row's arguments."""
    arguments = task_row.args_kwargs
    return deliver_order_event.call(*arguments["args"], **arguments["kwargs"])


@pytest.mark.django_db
def test_the_delivery_is_enqueued_in_the_order_changes_transaction():
    with transaction.atomic():
        enqueue_order_event("https://platform.example/profile.json", EVENT)
        assert len(queued()) == 1
    (row,) = queued()
    assert row.args_kwargs["args"][0] == "https://platform.example/profile.json"
    assert json.loads(row.args_kwargs["args"][1]) == EVENT


@pytest.mark.django_db
def test_a_rolled_back_order_change_leaves_no_delivery():
    with pytest.raises(RuntimeError), transaction.atomic():
        enqueue_order_event("https://platform.example/profile.json", EVENT)
        raise RuntimeError("the order change failed")
    assert queued() == []


@pytest.mark.django_db
def test_on_commit_enqueueing_waits_for_the_commit(settings, django_capture_on_commit_callbacks):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "WEBHOOK_ENQUEUE_ON_COMMIT": True}

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        enqueue_order_event("https://platform.example/profile.json", EVENT)
        assert queued() == []
    assert len(callbacks) == 1
    assert len(queued()) == 1


@pytest.mark.django_db
def test_the_event_is_posted_signed_with_the_published_key(platform):
    enqueue_order_event(platform.profile_url, EVENT, business_profile_url="https://shop.example/.well-known/ucp")

    assert run(queued()[0])["delivered"] is True
    (call,) = webhook_calls(platform)
    assert json.loads(call.body) == EVENT
    assert call.headers["Content-Type"] == "application/json"
    assert call.headers["UCP-Agent"] == 'profile="https://shop.example/.well-known/ucp"'
    # The platform's side (order.md, "Verification"): the kid names a key of signing_keys, which verifies
    # the detached JWS over the body exactly as received (RFC 7797: b64 false, critical).
    signature = call.headers["Request-Signature"]
    header = jwt.get_unverified_header(signature)
    key = public_jwk()
    assert (header["kid"], header["alg"], header["b64"], header["crit"]) == (key["kid"], "EdDSA", False, ["b64"])
    verified = jwt.api_jws.decode_complete(signature, key=jwt.PyJWK(key), algorithms=["EdDSA"],
                                           detached_payload=call.body)
    assert verified["payload"] == call.body
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.api_jws.decode_complete(signature, key=jwt.PyJWK(key), algorithms=["EdDSA"],
                                    detached_payload=call.body.replace(b"ord_1", b"ord_2"))


@pytest.mark.django_db
def test_a_platform_that_is_down_gets_the_event_again_later(platform):
    """A failed attempt enqueues the next one, later each time; the event is delivered once the platform is back."""
    platform.answer("/webhooks/orders", status=503, body=b"")
    enqueue_order_event(platform.profile_url, EVENT)

    before = timezone.now()
    with pytest.raises(DeliveryFailed, match=r"answered 503\); attempt 2 runs at"):
        run(queued()[0])
    second = queued()[1]
    assert second.args_kwargs["args"][3] == 2
    assert before + timedelta(seconds=5) <= second.run_after <= timezone.now() + timedelta(seconds=5)
    with pytest.raises(DeliveryFailed, match="attempt 3 runs at"):
        run(second)
    assert queued()[2].run_after - queued()[1].run_after >= timedelta(seconds=5)

    platform.answer("/webhooks/orders", status=200, body=b"{}")
    assert run(queued()[2]) == {"delivered": True, "status": 200, "attempt": 3}
    assert [json.loads(call.body) for call in webhook_calls(platform)] == [EVENT] * 3
    assert len(queued()) == 3


@pytest.mark.django_db
def test_an_unreachable_webhook_is_retried_too(platform):
    platform.answer(platform.profile_url.split(str(platform.port), 1)[1], body={"ucp": {
        "version": "2026-01-11", "capabilities": {"dev.ucp.shopping.order": [
            {"version": "2026-01-11", "config": {"webhook_url": "http://169.254.169.254/hook"}}]}}})
    enqueue_order_event(platform.profile_url, EVENT)

    with pytest.raises(DeliveryFailed, match="not a public address"):
        run(queued()[0])
    assert len(queued()) == 2


@pytest.mark.django_db
def test_an_event_past_its_age_is_dropped(platform, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "WEBHOOK_MAX_AGE_SECONDS": 60}
    platform.answer("/webhooks/orders", status=500, body=b"")
    old = (timezone.now() - timedelta(seconds=58)).isoformat()

    with pytest.raises(DeliveryFailed, match="too old to retry and was dropped"):
        deliver_order_event.call(platform.profile_url, json.dumps(EVENT), old, 4, None)
    assert queued() == []


@pytest.mark.django_db
def test_a_profile_without_a_webhook_is_nothing_to_deliver(platform):
    platform.answer(platform.profile_url.split(str(platform.port), 1)[1], body={"ucp": {"version": "2026-01-11"}})
    enqueue_order_event(platform.profile_url, EVENT)

    assert run(queued()[0])["delivered"] is False
    assert len(queued()) == 1


def test_the_delay_doubles_up_to_an_hour():
    assert [retry_delay(attempt) for attempt in (1, 2, 3, 4, 10, 30)] == [5, 10, 20, 40, 2560, 3600]


@pytest.fixture
def own_signal_handlers():
    """db_worker installs its own SIGINT/SIGTERM handlers: pytest's are put back afterwards."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)}
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


@pytest.mark.django_db(transaction=True)
def test_the_database_worker_delivers_a_committed_event(platform, own_signal_handlers):
    """The embedded default end to end: the row committed with the change, django-tasks-db's worker runs it."""
    with transaction.atomic():
        enqueue_order_event(platform.profile_url, EVENT)

    call_command("db_worker", batch=True, startup_delay=False, reload=False, interval=0, verbosity=0)

    assert [json.loads(call.body) for call in webhook_calls(platform)] == [EVENT]
    (row,) = queued()
    assert row.status == "SUCCESSFUL"
