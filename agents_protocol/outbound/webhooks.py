"""Order events delivered to the platform's webhook, as tasks of Django's Tasks framework
(`django.tasks` from Django 6, the `django-tasks` backport before).

An event is enqueued with the order change, in its transaction (WEBHOOK_ENQUEUE_ON_COMMIT: at
its commit), so a rolled-back change sends nothing and a committed one is not lost. The task
finds the webhook in the platform's profile (cached), signs the body (signing.py) and POSTs it
through the guarded fetch. A failure enqueues the next attempt after a delay that doubles each
time, up to an hour, until the event is WEBHOOK_MAX_AGE_SECONDS old; then it is dropped and
logged. A request never waits for a delivery.
"""
import json
import logging
from datetime import datetime, timedelta

import django
from django.db import transaction
from django.utils import timezone

from agents_protocol.core.conf import app_settings
from agents_protocol.core.errors import CapabilityError
from agents_protocol.outbound.addresses import OutboundRefused
from agents_protocol.outbound.fetch import fetch
from agents_protocol.outbound.profiles import fetched_profile, webhook_url
from agents_protocol.outbound.signing import detached_signature

if django.VERSION >= (6, 0):
    from django.tasks import task
else:
    from django_tasks import task

logger = logging.getLogger(__name__)

FIRST_RETRY_SECONDS = 5
LONGEST_RETRY_SECONDS = 3600


class DeliveryFailed(Exception):
    """One attempt failed; the next one is enqueued, or the event was dropped (the message says which)."""


def enqueue_order_event(profile_url, payload, business_profile_url=None):
    """Deliver `payload` (a JSON-ready dict) to the webhook of the platform profile at `profile_url`.

    `business_profile_url` (this shop's /.well-known/ucp), when given, identifies the business
    in the `UCP-Agent` header of the delivery, as the order capability asks.
    """
    enqueue_in_transaction(deliver_order_event, profile_url, json.dumps(payload, separators=(",", ":")),
                           timezone.now().isoformat(), 1, business_profile_url)


def enqueue_in_transaction(task, *arguments):
    """Enqueue `task` with `arguments` in the current transaction, or once it commits
    (WEBHOOK_ENQUEUE_ON_COMMIT): every order event's first delivery attempt."""
    if app_settings.WEBHOOK_ENQUEUE_ON_COMMIT:
        transaction.on_commit(lambda: task.enqueue(*arguments), robust=True)
    else:
        task.enqueue(*arguments)


def retry_delay(attempt):
    """Seconds before the attempt after `attempt`: 5, 10, 20 … up to an hour."""
    return min(FIRST_RETRY_SECONDS * 2 ** (attempt - 1), LONGEST_RETRY_SECONDS)


@task()
def deliver_order_event(profile_url, body, occurred_at, attempt, business_profile_url):
    try:
        url = webhook_url(fetched_profile(profile_url))
        if url is None:
            return {"delivered": False, "reason": "the platform profile names no order webhook"}
        answer = fetch(url, method="POST", body=body.encode(), headers=_headers(body, business_profile_url))
        if 200 <= answer.status < 300:
            return {"delivered": True, "status": answer.status, "attempt": attempt}
        failure = f"{url} answered {answer.status}"
    except OutboundRefused as refusal:
        failure = str(refusal)
    except CapabilityError as refusal:
        failure = refusal.message
    raise DeliveryFailed(retry_or_drop(deliver_order_event, (profile_url, body, occurred_at, attempt + 1,
                                                             business_profile_url),
                                       occurred_at, attempt, failure, profile_url))


def _headers(body, business_profile_url):
    headers = {"Content-Type": "application/json", "Request-Signature": detached_signature(body.encode())}
    if business_profile_url:
        headers["UCP-Agent"] = f'profile="{business_profile_url}"'
    return headers


def retry_or_drop(task, next_arguments, occurred_at, attempt, failure, target):
    """After `attempt` failed (`failure` says why): enqueue `task` with `next_arguments` (the next
    attempt's) after retry_delay(attempt), or drop the event, logged, when it happened (at
    `occurred_at`, ISO 8601) longer than WEBHOOK_MAX_AGE_SECONDS before then. The sentence for
    DeliveryFailed; `target` names the webhook in the log."""
    run_after = timezone.now() + timedelta(seconds=retry_delay(attempt))
    if run_after - datetime.fromisoformat(occurred_at) > timedelta(seconds=app_settings.WEBHOOK_MAX_AGE_SECONDS):
        logger.error("Order event for %s dropped after %d attempts: %s", target, attempt, failure)
        return f"Attempt {attempt} failed ({failure}); the event is too old to retry and was dropped."
    task.using(run_after=run_after).enqueue(*next_arguments)
    logger.warning("Order event for %s: attempt %d failed (%s), retrying at %s", target, attempt, failure,
                   run_after.isoformat())
    return f"Attempt {attempt} failed ({failure}); attempt {attempt + 1} runs at {run_after.isoformat()}."
