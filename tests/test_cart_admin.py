from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from cart import services
from tests.factories import make_agent_session, make_product

pytestmark = pytest.mark.django_db


@pytest.fixture
def order():
    agent_session = make_agent_session()
    make_product(public_id="speckled-mug", name="Speckled Mug", stock=10)
    services.add_item(agent_session, "speckled-mug", 2)
    order, _token = services.start_checkout(agent_session)
    return order


def test_order_admin_shows_lines_but_never_the_token_hash(admin_client, order):
    response = admin_client.get(reverse("admin:cart_order_change", args=[order.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Speckled Mug" in html
    assert order.handoff_token_hash not in html
    assert "handoff_token_hash" not in html


def test_order_admin_search_by_number(admin_client, order):
    other_session = make_agent_session()
    services.add_item(other_session, "speckled-mug", 1)
    other, _token = services.start_checkout(other_session)
    response = admin_client.get(reverse("admin:cart_order_changelist"), {"q": order.number})
    html = response.content.decode()
    assert order.number in html and other.number not in html


def test_cart_admin_search_by_session_public_id(admin_client, order):
    other_cart = services.get_open_cart(make_agent_session())
    response = admin_client.get(
        reverse("admin:cart_cart_changelist"), {"q": order.agent_session.public_id, "status": "frozen"}
    )
    html = response.content.decode()
    assert reverse("admin:cart_cart_change", args=[order.cart.pk]) in html
    assert reverse("admin:cart_cart_change", args=[other_cart.pk]) not in html
    response = admin_client.get(reverse("admin:cart_cart_change", args=[order.cart.pk]))
    assert response.status_code == 200


def test_carts_are_read_only_and_orders_cannot_be_deleted(admin_client, order):
    # A cart set back to open would take the agent's next cart.add and then fail its checkout (one
    # order per cart); a deleted order leaves its cart frozen and the human's link dead.
    cart_page = reverse("admin:cart_cart_change", args=[order.cart.pk])
    assert admin_client.post(cart_page, {"status": "open"}).status_code == 403
    assert admin_client.post(reverse("admin:cart_order_delete", args=[order.pk]), {"post": "yes"}).status_code == 403
    order.cart.refresh_from_db()
    assert order.cart.status == "frozen" and type(order).objects.filter(pk=order.pk).exists()
    assert 'name="_save"' not in admin_client.get(cart_page).content.decode()


def test_the_status_filter_lists_orders_by_the_status_the_list_shows(admin_client, order):
    # Nothing marks an abandoned handoff expired until its page is opened: the filter reads the deadline.
    late_session = make_agent_session()
    services.add_item(late_session, "speckled-mug", 1)
    late, _token = services.start_checkout(late_session)
    type(late).objects.filter(pk=late.pk).update(expires_at=timezone.now() - timedelta(minutes=1))

    def listed(status):
        response = admin_client.get(reverse("admin:cart_order_changelist"), {"status": status})
        return {row.number for row in response.context["cl"].result_list}

    assert listed("pending") == {order.number}
    assert listed("expired") == {late.number}
    assert late.number in admin_client.get(reverse("admin:cart_order_changelist")).content.decode()
