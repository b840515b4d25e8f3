from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from cart import services
from tests.factories import make_agent_session, make_product

pytestmark = pytest.mark.django_db


@pytest.fixture
def checkout():
    agent_session = make_agent_session()
    make_product(public_id="speckled-mug", name="Speckled Mug", price=Decimal("24.00"), stock=10)
    make_product(public_id="saucer", name="Saucer", price=Decimal("7.50"), stock=10)
    services.add_item(agent_session, "speckled-mug", 2)
    services.add_item(agent_session, "saucer", 1)
    return services.start_checkout(agent_session)


def test_handoff_url_shape():
    assert reverse("cart:handoff", kwargs={"token": "abc"}) == "/checkout/abc/"


def test_handoff_page_shows_the_frozen_order(client, checkout):
    order, raw_token = checkout
    response = client.get(reverse("cart:handoff", kwargs={"token": raw_token}))
    assert response.status_code == 200
    html = response.content.decode()
    assert order.number in html
    assert "Speckled Mug" in html and "Saucer" in html
    assert "24.00 USD" in html and "48.00 USD" in html and "7.50 USD" in html
    assert "55.50 USD" in html
    assert "An AI agent prepared this cart" in html
    assert "confirm the order" in html
    assert "no-cache" in response["Cache-Control"]


def test_handoff_page_unknown_token_is_404(client, checkout):
    response = client.get(reverse("cart:handoff", kwargs={"token": "not-a-real-token"}))
    assert response.status_code == 404


def test_handoff_page_expired_is_410(client, checkout):
    order, raw_token = checkout
    order.expires_at = timezone.now() - timedelta(seconds=1)
    order.save()
    response = client.get(reverse("cart:handoff", kwargs={"token": raw_token}))
    assert response.status_code == 410
    html = response.content.decode()
    assert "expired" in html
    assert "Speckled Mug" not in html
