"""The expired checkout link on request, in process (cart/scenarios.py, docs/agent-testing.md):
a session whose agent name contains sandbox:expired-checkout gets a link that has expired at once."""
from datetime import datetime, timezone
from decimal import Decimal

import pytest

from tests.api_client import API, AgentClient, ok_data
from tests.factories import make_product

TIMEOUT = 10


@pytest.fixture
def mug(db):
    return make_product(public_id="speckled-mug", name="Speckled Mug", price=Decimal("24.00"), stock=10)


def checkout(http, agent_name):
    agent = AgentClient(django_client=http.django_client)
    agent.start_session(agent_name=agent_name)
    agent.add_to_cart("speckled-mug", 1)
    return agent, ok_data(agent.post(f"{API}/checkout"))


def test_a_session_named_for_it_gets_a_checkout_link_that_has_expired(http, mug):
    agent, handoff = checkout(http, "acme-test-bot sandbox:expired-checkout")

    expires_at = datetime.fromisoformat(handoff["expires_at"].replace("Z", "+00:00"))
    assert expires_at <= datetime.now(timezone.utc)
    page = http.get(handoff["checkout_url"], timeout=TIMEOUT)
    assert page.status_code == 410
    assert "This checkout link has expired" in page.text
    assert "Confirm order" not in page.text
    status = ok_data(agent.get(f"{API}/order/status", {"order_id": handoff["order_id"]}))
    assert status["status"] == "expired"


def test_other_sessions_get_the_shops_lifetime(http, mug, settings):
    _agent, handoff = checkout(http, "acme-test-bot sandbox:rate-limit")

    expires_at = datetime.fromisoformat(handoff["expires_at"].replace("Z", "+00:00"))
    remaining = (expires_at - datetime.now(timezone.utc)).total_seconds()
    assert settings.CHECKOUT_TTL_SECONDS - 10 <= remaining <= settings.CHECKOUT_TTL_SECONDS
    assert http.get(handoff["checkout_url"], timeout=TIMEOUT).status_code == 200
