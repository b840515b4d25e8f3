"""Checkouts that become the shop's orders later (agents_protocol/core/handoffs.py), in process.

The shop here creates its orders only when the human pays, as django-oscar does: its
checkout hands off a basket reference, and it tells the app which order the handoff became
with resolve_handoff(). The agent's order_id never changes.
"""
from datetime import timedelta
from decimal import Decimal
from itertools import count

import pytest
from django.utils import timezone

from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.handoffs import resolve_handoff
from agents_protocol.core.provider import Handoff, ShopProvider
from agents_protocol.models import CheckoutHandoff
from tests.api_client import API, AgentClient, assert_error, ok_data

pytestmark = pytest.mark.django_db

ORDERS = {}  # the shop's orders, by number: created when the human pays
BASKETS = count(1)


class PayLaterProvider(ShopProvider):
    def checkout(self, context):
        basket = f"basket-{next(BASKETS)}"
        return Handoff(checkout_url=context.absolute_url(f"/checkout/{basket}/"),
                       expires_at=timezone.now() + timedelta(minutes=30), reference=basket)

    def order_status(self, context, *, order_id):
        # Only the app knows which of the shop's orders an agent may see: those its handoffs became.
        if context.resolved_handoff is None or order_id not in ORDERS:
            raise CapabilityError(404, "unknown_order", f"No order {order_id!r}.")
        return {"order_id": order_id, **ORDERS[order_id]}


@pytest.fixture
def pay_later_shop(settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "PROVIDER": f"{__name__}.PayLaterProvider"}
    ORDERS.clear()


def human_pays(reference, number):
    """What the shop does once the human paid: its order exists, and it names the handoff's order."""
    ORDERS[number] = {"status": "confirmed", "total": Decimal("36.00"), "currency": "USD"}
    return resolve_handoff(reference, number)


def order_status(agent, order_id=None):
    return ok_data(agent.get(f"{API}/order/status", {"order_id": order_id} if order_id else None))


def test_the_agent_keeps_its_order_id_and_sees_the_real_order_once_resolved(site_client, pay_later_shop):
    agent = AgentClient(django_client=site_client)
    agent.start_session(agent_name="test")
    handed = ok_data(agent.post(f"{API}/checkout"))
    order_id = handed["order_id"]
    reference = CheckoutHandoff.objects.get(order_id=order_id).reference
    assert order_id.startswith("ord_") and reference not in order_id
    assert handed["checkout_url"].endswith(f"/checkout/{reference}/")

    pending = order_status(agent, order_id)
    assert (pending["order_id"], pending["status"]) == (order_id, "pending")
    assert pending["expires_at"] == handed["expires_at"]

    assert human_pays(reference, "100042") == 1
    confirmed = order_status(agent, order_id)
    assert confirmed == {"order_id": order_id, "order_number": "100042", "status": "confirmed",
                         "total": 36.0, "currency": "USD"}
    assert order_status(agent) == {"orders": [confirmed]}


def test_a_basket_merged_at_login_resolves_by_the_reference_the_shop_kept(site_client, pay_later_shop):
    """The human logs in and the shop merges the agent's basket into their own, so the order comes
    from another basket; the shop resolves by the reference kept in the human's session. Two
    checkouts of one agent merged into one order both answer from it."""
    agent = AgentClient(django_client=site_client)
    agent.start_session(agent_name="test")
    first, second = (ok_data(agent.post(f"{API}/checkout"))["order_id"] for _ in range(2))
    references = [CheckoutHandoff.objects.get(order_id=order_id).reference for order_id in (first, second)]
    ORDERS["100077"] = {"status": "confirmed"}
    assert [resolve_handoff(reference, "100077") for reference in references] == [1, 1]
    for order_id in (first, second):
        assert order_status(agent, order_id) == {"order_id": order_id, "order_number": "100077", "status": "confirmed"}


def test_a_resolved_handoff_keeps_its_first_order_and_unknown_references_resolve_nothing(site_client, pay_later_shop):
    agent = AgentClient(django_client=site_client)
    agent.start_session(agent_name="test")
    order_id = ok_data(agent.post(f"{API}/checkout"))["order_id"]
    reference = CheckoutHandoff.objects.get(order_id=order_id).reference
    assert human_pays(reference, "100001") == 1
    assert human_pays(reference, "100002") == 0
    assert resolve_handoff("basket-unknown", "100003") == 0
    assert order_status(agent, order_id)["order_number"] == "100001"


def test_another_session_never_sees_the_handoff(site_client, pay_later_shop):
    agent, stranger = AgentClient(django_client=site_client), AgentClient(django_client=site_client)
    agent.start_session(agent_name="test")
    stranger.start_session(agent_name="stranger")
    order_id = ok_data(agent.post(f"{API}/checkout"))["order_id"]
    human_pays(CheckoutHandoff.objects.get(order_id=order_id).reference, "100050")
    assert_error(stranger.get(f"{API}/order/status", {"order_id": order_id}), 404, "unknown_order")
    assert_error(stranger.get(f"{API}/order/status", {"order_id": "100050"}), 404, "unknown_order")


def test_an_unresolved_handoff_past_its_expiry_is_expired(site_client, pay_later_shop):
    agent = AgentClient(django_client=site_client)
    agent.start_session(agent_name="test")
    order_id = ok_data(agent.post(f"{API}/checkout"))["order_id"]
    CheckoutHandoff.objects.filter(order_id=order_id).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert order_status(agent, order_id)["status"] == "expired"


def test_a_handoff_carries_an_order_id_or_a_reference():
    with pytest.raises(ValueError):
        Handoff(checkout_url="https://shop.example/c", expires_at=None)
    with pytest.raises(ValueError):
        Handoff(checkout_url="https://shop.example/c", expires_at=None, order_id="1", reference="basket-1")
