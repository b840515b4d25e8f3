"""ACP order events (`openapi.agentic_checkout_webhook.yaml`) to a platform's webhook, delivered
as webhooks.py delivers UCP's: a task enqueued in the order change's transaction, retried with
a growing delay until WEBHOOK_MAX_AGE_SECONDS, through the guarded fetch.

Each attempt is signed as the spec says: `Merchant-Signature: t=<Unix seconds>,v1=<hex>`, the
HMAC-SHA256 of `<t>.<raw body>` with the secret the platform shares with the shop. A platform
refuses a timestamp outside its window (300 s recommended), so a retry is signed anew. The
webhook's URL and secret are not in the task's arguments: `source`, the dotted path of a function
taking `key`, gives them at each attempt (a Webhook, or None when there is none any more), so no
secret waits in the queue, and a new URL or secret applies from the next attempt. `Request-Id`
is the event's, the same at each attempt, so the platform can tell a retry from a new event.
"""
import hashlib
import hmac
import json
import time
import uuid
from dataclasses import dataclass

from django.utils import timezone
from django.utils.module_loading import import_string

from agents_protocol.core.formats import iso_utc
from agents_protocol.outbound.addresses import OutboundRefused
from agents_protocol.outbound.fetch import fetch
from agents_protocol.outbound.webhooks import DeliveryFailed, enqueue_in_transaction, retry_or_drop, task


@dataclass(frozen=True)
class Webhook:
    url: str
    secret: str


def merchant_signature(secret, body, timestamp):
    """`Merchant-Signature` of `body` (bytes) at `timestamp` (Unix seconds) with `secret`."""
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def enqueue_acp_order_event(source, key, payload):
    """Deliver `payload` (a WebhookEvent: `type` and the full Order as `data`) to the webhook that
    the function at dotted path `source` gives for `key`, from the current transaction on."""
    enqueue_in_transaction(deliver_acp_order_event, source, key, json.dumps(payload, separators=(",", ":")),
                           timezone.now().isoformat(), 1, f"evt_{uuid.uuid4().hex}")


@task()
def deliver_acp_order_event(source, key, body, occurred_at, attempt, request_id):
    webhook = import_string(source)(key)
    if webhook is None:
        return {"delivered": False, "reason": "the platform has no order webhook"}
    failure = post(webhook, body.encode(), request_id)
    if failure is None:
        return {"delivered": True, "attempt": attempt}
    raise DeliveryFailed(retry_or_drop(deliver_acp_order_event, (source, key, body, occurred_at, attempt + 1,
                                                                 request_id),
                                       occurred_at, attempt, failure, webhook.url))


def post(webhook, body, request_id):
    """POST the signed `body` to the webhook: None when it took it (2xx), else why not."""
    headers = {"Content-Type": "application/json", "Request-Id": request_id, "Timestamp": iso_utc(timezone.now()),
               "Merchant-Signature": merchant_signature(webhook.secret, body, int(time.time()))}
    try:
        answer = fetch(webhook.url, method="POST", body=body, headers=headers)
    except OutboundRefused as refusal:
        return str(refusal)
    return None if 200 <= answer.status < 300 else f"{webhook.url} answered {answer.status}"
