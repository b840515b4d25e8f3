"""Staff see orders with their status, lines and customer details, and the contact messages."""
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from acme.models import ContactMessage
from cart import services
from cart.models import Order
from cart.payments import Customer
from tests.factories import make_agent_session, make_product

pytestmark = pytest.mark.django_db

ADA = Customer(name="Ada Lovelace", email="ada@example.com", shipping_address="1 Loom Lane\nLondon")


def checkout(quantity=2):
    agent_session = make_agent_session()
    make_product(public_id=f"mug-{quantity}", name=f"Mug {quantity}", stock=10)
    services.add_item(agent_session, f"mug-{quantity}", quantity)
    order, _token = services.start_checkout(agent_session)
    return order


def test_the_order_list_shows_status_customer_and_reads_expired_orders_as_expired(admin_client):
    confirmed, pending, overdue = checkout(1), checkout(2), checkout(3)
    services.confirm_order(confirmed, ADA)
    Order.objects.filter(pk=overdue.pk).update(expires_at=timezone.now() - timedelta(seconds=1))

    html = admin_client.get(reverse("admin:cart_order_changelist")).content.decode()

    rows = {order.number: row_of(html, order.number) for order in (confirmed, pending, overdue)}
    assert "Confirmed" in rows[confirmed.number] and "Ada Lovelace" in rows[confirmed.number]
    assert "Pending (waiting for the human)" in rows[pending.number]
    assert "Expired" in rows[overdue.number]


def row_of(html, number):
    start = html.index(number)
    return html[start:html.index("</tr>", start)]


def test_an_order_page_shows_lines_customer_and_payment_but_not_the_token(admin_client):
    order = checkout()
    services.confirm_order(order, ADA)
    order.refresh_from_db()

    html = admin_client.get(reverse("admin:cart_order_change", args=[order.pk])).content.decode()

    for text in ("Mug 2", "Ada Lovelace", "ada@example.com", "1 Loom Lane", order.payment_reference, "Confirmed"):
        assert text in html
    assert order.handoff_token_hash not in html


def test_staff_may_correct_contact_details_but_not_status_or_money(admin_client):
    order = checkout()
    services.confirm_order(order, ADA)
    url = reverse("admin:cart_order_change", args=[order.pk])

    response = admin_client.post(url, {
        "customer_name": "Ada King", "customer_email": "ada@example.com", "shipping_address": "2 Loom Lane",
        "status": "cancelled", "subtotal": "0.01",
        "lines-TOTAL_FORMS": "1", "lines-INITIAL_FORMS": "1", "lines-MIN_NUM_FORMS": "0",
        "lines-MAX_NUM_FORMS": "1000", "lines-0-id": str(order.lines.get().pk), "lines-0-order": str(order.pk),
    })

    assert response.status_code == 302
    order.refresh_from_db()
    assert (order.customer_name, order.shipping_address) == ("Ada King", "2 Loom Lane")
    assert order.status == Order.Status.CONFIRMED
    assert order.subtotal == 20


def test_orders_are_made_by_checkout_only(admin_client):
    assert admin_client.get(reverse("admin:cart_order_add")).status_code == 403


def test_contact_messages_are_listed_searchable_and_can_be_marked_handled(admin_client):
    message = ContactMessage.objects.create(name="Grace", email="grace@example.com", message="Do you ship to Oslo?")
    ContactMessage.objects.create(name="Alan", email="alan@example.com", message="Hello")

    found = admin_client.get(reverse("admin:acme_contactmessage_changelist"), {"q": "Oslo"}).content.decode()
    assert "grace@example.com" in found and "alan@example.com" not in found

    url = reverse("admin:acme_contactmessage_change", args=[message.pk])
    assert "Do you ship to Oslo?" in admin_client.get(url).content.decode()
    assert admin_client.post(url, {"handled": "on"}).status_code == 302
    message.refresh_from_db()
    assert message.handled is True
    assert message.message == "Do you ship to Oslo?"
