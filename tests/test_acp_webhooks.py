"""ACP order events to a platform's webhook (agents_protocol/outbound/acp_webhooks.py): enqueued in
the order change's transaction, signed with `Merchant-Signature` as openapi.agentic_checkout_webhook.yaml
says, retried with backoff. The task runs in process; the platform is a server on 127.0.0.1."""
import hashlib
import hmac
import json
import re
import time
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from agents_protocol.outbound.acp_webhooks import (
    Webhook,
    deliver_acp_order_event,
    enqueue_acp_order_event,
    merchant_signature,
)
from agents_protocol.outbound.webhooks import DeliveryFailed
from tests.platform_server import PlatformServer

pytestmark = pytest.mark.django_db

EVENT = {"type": "order_create", "data": {"type": "order", "id": "ord_1", "checkout_session_id": "cs_1",
                                          "permalink_url": "https://shop.example/orders/ord_1", "status": "created"}}
SOURCE = "tests.test_acp_webhooks.webhook_of"
SECRET = "whsec_test_3f9a1c"
WEBHOOKS = {}  # key → Webhook, what webhook_of gives the task
HOOK_PATH = "/agentic_checkout/webhooks/order_events"


def webhook_of(key):
    return WEBHOOKS.get(key)


@pytest.fixture
def platform(settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "OUTBOUND_ALLOWED_NETWORKS": ["127.0.0.0/8"],
                                "OUTBOUND_TIMEOUT_SECONDS": 1}
    with PlatformServer() as server:
        server.answer(HOOK_PATH, body={"received": True})
        WEBHOOKS["platform-1"] = Webhook(server.url(HOOK_PATH), SECRET)
        yield server
    WEBHOOKS.clear()


def verified(arrived, secret, tolerance=300):
    """The platform's side, as the spec describes it: `t=<unix_seconds>,v1=<64_hex>`,
    HMAC-SHA256(timestamp + "." + raw_body, secret), the timestamp within the window."""
    match = re.fullmatch(r"t=(\d+),v1=([a-fA-F0-9]{64})", arrived.headers.get("Merchant-Signature", ""))
    if match is None or abs(time.time() - int(match[1])) > tolerance:
        return False
    expected = hmac.new(secret.encode(), match[1].encode() + b"." + arrived.body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, match[2].lower())


def queued():
    return list(DBTaskResult.objects.filter(task_path=deliver_acp_order_event.module_path).order_by("enqueued_at"))


def run(task_row):
    arguments = task_row.args_kwargs
    return deliver_acp_order_event.call(*arguments["args"], **arguments["kwargs"])


def test_the_delivery_is_enqueued_in_the_order_changes_transaction():
    with transaction.atomic():
        enqueue_acp_order_event(SOURCE, "platform-1", EVENT)
        assert len(queued()) == 1
    (row,) = queued()
    assert json.loads(row.args_kwargs["args"][2]) == EVENT


def test_a_rolled_back_order_change_leaves_no_delivery():
    with pytest.raises(RuntimeError), transaction.atomic():
        enqueue_acp_order_event(SOURCE, "platform-1", EVENT)
        raise RuntimeError("the order change failed")
    assert queued() == []


def test_the_event_is_posted_signed_with_the_shared_secret(platform):
    enqueue_acp_order_event(SOURCE, "platform-1", EVENT)

    assert run(queued()[0]) == {"delivered": True, "attempt": 1}
    (arrived,) = platform.requests
    assert (arrived.method, arrived.path) == ("POST", HOOK_PATH)
    assert json.loads(arrived.body) == EVENT
    assert arrived.headers["Content-Type"] == "application/json"
    assert arrived.headers["Request-Id"].startswith("evt_")
    assert verified(arrived, SECRET)
    assert not verified(arrived, "another secret")
    tampered = type(arrived)(arrived.method, arrived.path, arrived.headers, arrived.body.replace(b"ord_1", b"ord_2"))
    assert not verified(tampered, SECRET)
    assert SECRET not in json.dumps(queued()[0].args_kwargs)  # the queue never holds the secret


def test_the_signature_is_the_specs_hmac():
    body = b'{"type":"order_update"}'
    expected = hmac.new(b"s3cret", b"1709123456." + body, hashlib.sha256).hexdigest()

    assert merchant_signature("s3cret", body, 1709123456) == f"t=1709123456,v1={expected}"


def test_a_platform_that_is_down_gets_the_event_again_signed_anew(platform):
    platform.answer(HOOK_PATH, status=503, body=b"")
    enqueue_acp_order_event(SOURCE, "platform-1", EVENT)

    before = timezone.now()
    with pytest.raises(DeliveryFailed, match=r"answered 503\); attempt 2 runs at"):
        run(queued()[0])
    first, second = queued()
    assert second.args_kwargs["args"][4] == 2
    assert second.run_after >= before + timedelta(seconds=5)
    WEBHOOKS["platform-1"] = Webhook(platform.url(HOOK_PATH), "rotated secret")
    platform.answer(HOOK_PATH, body={"received": True})

    assert run(second) == {"delivered": True, "attempt": 2}
    failed, delivered = platform.requests
    assert failed.headers["Request-Id"] == delivered.headers["Request-Id"]  # one event, two attempts
    assert verified(failed, SECRET) and verified(delivered, "rotated secret")


def test_an_event_past_its_age_is_dropped(platform, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "WEBHOOK_MAX_AGE_SECONDS": 60}
    platform.answer(HOOK_PATH, status=500, body=b"")
    old = (timezone.now() - timedelta(seconds=58)).isoformat()

    with pytest.raises(DeliveryFailed, match="too old to retry and was dropped"):
        deliver_acp_order_event.call(SOURCE, "platform-1", json.dumps(EVENT), old, 4, "evt_1")
    assert queued() == []


def test_a_platform_without_a_webhook_is_nothing_to_deliver(platform):
    enqueue_acp_order_event(SOURCE, "platform-without-webhook", EVENT)

    assert run(queued()[0])["delivered"] is False
    assert len(queued()) == 1 and platform.requests == []
