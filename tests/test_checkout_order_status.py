"""order.status in process: an agent sees whether its human completed the checkout."""
import importlib
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.utils import timezone

from agents_protocol.models import Capability, CapabilityParam, ConfigRevision
from cart.models import Order
from tests.api_client import API, IN_PROCESS_URL, AgentClient, assert_error, ok_data
from tests.factories import make_product
from tests.test_checkout_pages import Human, agent_checkout

STATUS = f"{API}/order/status"
migration = importlib.import_module("agents_protocol.migrations.0004_order_status_capability")


@pytest.fixture
def mug(db):
    return make_product(public_id="speckled-mug", name="Speckled Mug", price=Decimal("24.00"), stock=10)


@pytest.fixture
def handed_off(http, mug):
    """(the checkout data, the agent that made it, the human holding the link)."""
    handoff, agent = agent_checkout(IN_PROCESS_URL, ("speckled-mug", 2), django_client=http.django_client)
    human = Human(handoff["checkout_url"], http)
    human.open()
    return handoff, agent, human


def status_of(agent, order_id):
    return ok_data(agent.get(STATUS, {"order_id": order_id}))


def historical_apps():
    """The models as the migration sees them (no signals a worker listens to)."""
    return MigrationLoader(connection).project_state(("agents_protocol", migration.__name__.rsplit(".", 1)[1])).apps


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_a_pending_order_is_reported_with_its_money_and_deadline(handed_off):
    handoff, agent, _human = handed_off

    listed = ok_data(agent.get(STATUS))

    assert listed == {"orders": [status_of(agent, handoff["order_id"])]}
    order = listed["orders"][0]
    assert set(order) == {"order_id", "status", "subtotal", "currency", "created", "expires_at", "confirmed_at"}
    assert (order["order_id"], order["status"], order["currency"]) == (handoff["order_id"], "pending", "USD")
    assert order["expires_at"] == handoff["expires_at"]
    assert order["confirmed_at"] is None
    assert parse_time(order["created"]) < parse_time(order["expires_at"])
    assert '"subtotal":48.00' in agent.get(STATUS).text  # money: a JSON number with two decimals


def test_the_agent_sees_its_human_confirm(handed_off):
    handoff, agent, human = handed_off
    human.confirm()

    order = status_of(agent, handoff["order_id"])

    assert order["status"] == "confirmed"
    assert parse_time(order["confirmed_at"]) <= timezone.now()


def test_the_agent_sees_a_decline_then_a_successful_retry(handed_off):
    handoff, agent, human = handed_off
    human.confirm(card_number="4000 0000 0000 0002")
    assert status_of(agent, handoff["order_id"])["status"] == "declined"
    human.confirm()
    assert status_of(agent, handoff["order_id"])["status"] == "confirmed"


def test_the_agent_sees_a_pending_payment_as_pending(handed_off):
    handoff, agent, human = handed_off
    assert human.confirm(card_number="4000 0000 0000 3063").status_code == 202
    order = status_of(agent, handoff["order_id"])
    assert (order["status"], order["confirmed_at"]) == ("pending", None)


def test_the_agent_sees_a_cancellation(handed_off):
    handoff, agent, human = handed_off
    human.post("cancel/")
    assert status_of(agent, handoff["order_id"])["status"] == "cancelled"


def test_an_order_past_its_deadline_is_expired_even_before_anyone_opens_the_link(handed_off):
    handoff, agent, _human = handed_off
    Order.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    assert status_of(agent, handoff["order_id"])["status"] == "expired"


def test_orders_are_listed_newest_first(handed_off):
    first, agent, _human = handed_off
    agent.add_to_cart("speckled-mug", 1)
    second = ok_data(agent.post(f"{API}/checkout"))

    listed = ok_data(agent.get(STATUS))["orders"]

    assert [order["order_id"] for order in listed] == [second["order_id"], first["order_id"]]
    assert [order["subtotal"] for order in listed] == [24, 48]


def test_a_session_without_orders_has_an_empty_list(site_client):
    agent = AgentClient(django_client=site_client)
    agent.start_session()
    assert ok_data(agent.get(STATUS)) == {"orders": []}


def test_unknown_and_other_sessions_orders_are_404(handed_off, site_client):
    handoff, _agent, _human = handed_off
    stranger = AgentClient(django_client=site_client)
    stranger.start_session()

    assert_error(stranger.get(STATUS, {"order_id": handoff["order_id"]}), 404, "unknown_order")
    assert_error(stranger.get(STATUS, {"order_id": "AC-NOTREAL"}), 404, "unknown_order")
    assert ok_data(stranger.get(STATUS)) == {"orders": []}


def test_order_status_needs_a_session(site_client):
    assert_error(AgentClient(django_client=site_client).get(STATUS), 401, "session_required")


def test_agents_json_and_agents_txt_publish_it_after_checkout_in_no_flow(http):
    document = http.get(f"{IN_PROCESS_URL}/.well-known/agents.json", timeout=10).json()
    names = [capability["name"] for capability in document["capabilities"]]
    assert names[names.index("checkout") + 1] == "order.status"
    published = document["capabilities"][names.index("order.status")]
    assert (published["method"], published["endpoint"], published["requires_session"]) == ("GET", STATUS, True)
    assert published["params"]["order_id"]["type"] == "string"
    assert published["params"]["order_id"]["required"] is False
    assert all("order.status" not in flow["steps"] for flow in document["flows"])

    txt = http.get(f"{IN_PROCESS_URL}/.well-known/agents.txt", timeout=10).text
    assert "Allow: checkout\nAllow: order.status\n" in txt


@pytest.mark.django_db
def test_the_data_migration_adds_it_to_an_existing_install_right_after_checkout():
    Capability.objects.filter(name="order.status").delete()
    before = [name for name in Capability.objects.values_list("name", flat=True)]
    revision = ConfigRevision.objects.get().number

    migration.add_order_status(historical_apps(), None)
    migration.add_order_status(historical_apps(), None)

    names = list(Capability.objects.values_list("name", flat=True))
    checkout_at = before.index("checkout")
    assert names == before[:checkout_at + 1] + ["order.status"] + before[checkout_at + 1:]
    positions = list(Capability.objects.values_list("position", flat=True))
    assert positions == sorted(set(positions))
    param = CapabilityParam.objects.get(capability__name="order.status")
    assert (param.name, param.type, param.required) == ("order_id", "string", False)
    assert ConfigRevision.objects.get().number == revision + 1


@pytest.mark.django_db
def test_the_data_migration_leaves_a_taken_route_alone():
    Capability.objects.filter(name="order.status").update(name="shop.orders")

    migration.add_order_status(historical_apps(), None)

    assert not Capability.objects.filter(name="order.status").exists()
    assert Capability.objects.get(endpoint=STATUS, method="GET").name == "shop.orders"
