"""UCP through outbound/, in process: the platform profile a `UCP-Agent` header names (refused in
UCP's error shape when private, slow, huge or invalid, with nothing changed in the shop), the
order events a checkout's platform receives (signed with the key /.well-known/ucp publishes),
and the conformance suite's /testing/simulate-shipping/{id}."""
import json
import uuid

import jwt
import pytest
from django.core.management import call_command
from django_tasks_db.models import DBTaskResult

from agents_protocol.checkout.models import CheckoutSession
from agents_protocol.core.models import AgentSession
from agents_protocol.outbound.webhooks import deliver_order_event
from tests.platform_server import PlatformServer
from tests.test_ucp_checkout import FLOWER_SHOP, assert_ucp_error, create_payload, payment, shipping

pytestmark = pytest.mark.django_db
SECRET = "simulation-secret-for-tests"


@pytest.fixture
def flower_shop(tmp_path):
    for name, text in FLOWER_SHOP.items():
        (tmp_path / name).write_text(text)
    call_command("load_ucp_flower_shop", str(tmp_path), stdout=open("/dev/null", "w"))


@pytest.fixture
def platform(settings):
    """A platform on 127.0.0.1 (allowed for these tests) whose profile names its order webhook."""
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "OUTBOUND_ALLOWED_NETWORKS": ["127.0.0.1/32"],
                                "OUTBOUND_TIMEOUT_SECONDS": 1, "OUTBOUND_MAX_BYTES": 8192}
    with PlatformServer() as server:
        server.profile_path = f"/profiles/{uuid.uuid4().hex}.json"
        server.answer(server.profile_path, body={"ucp": {"version": "2026-01-11", "capabilities": [
            {"name": "dev.ucp.shopping.order", "version": "2026-01-11",
             "config": {"webhook_url": server.url("/webhooks/partners/test_partner/events/order")}}]}})
        server.answer("/webhooks/partners/test_partner/events/order", body={"status": "ok"})
        yield server


def call(client, method, path, body=None, profile="", **headers):
    return getattr(client, method)(path, data=json.dumps(body) if body is not None else "",
                                   content_type="application/json",
                                   headers={"UCP-Agent": f'profile="{profile}"', "idempotency-key": str(uuid.uuid4()),
                                            "request-id": str(uuid.uuid4()), **headers})


def shop_rows():
    return CheckoutSession.objects.count(), AgentSession.objects.count(), DBTaskResult.objects.count()


def deliveries():
    return list(DBTaskResult.objects.filter(task_path=deliver_order_event.module_path).order_by("enqueued_at"))


def payload_of(row):
    return json.loads(row.args_kwargs["args"][1])


def completed_order(client, platform):
    """A checkout made and paid under the platform's profile: (checkout id, order id)."""
    profile = platform.url(platform.profile_path)
    made = call(client, "post", "/checkout-sessions", create_payload(fulfillment=shipping("std-ship")), profile)
    assert made.status_code == 201, made.content
    done = call(client, "post", f"/checkout-sessions/{made.json()['id']}/complete", payment(), profile)
    assert done.status_code == 200, done.content
    return made.json()["id"], done.json()["order"]["id"]


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/profile.json", "http://localhost/profile.json",
                                 "http://169.254.169.254/latest/meta-data/", "http://10.0.0.7/p.json",
                                 "http://[::1]/p.json", "http://[::ffff:192.168.0.1]/p.json"])
def test_a_private_profile_url_is_refused_and_nothing_changes(client, flower_shop, url):
    before = shop_rows()

    body = assert_ucp_error(call(client, "post", "/checkout-sessions", create_payload(), url), 400, "invalid_profile")

    assert "not a public address" in body["detail"]
    assert shop_rows() == before


@pytest.mark.parametrize(("answer", "reason"), [
    ({"delay": 2, "body": {"ucp": {"version": "2026-01-11"}}}, "did not answer"),
    ({"body": b"[" + b"0," * 10_000 + b"0]"}, "over the limit of 8192"),
    ({"body": b"not json at all"}, "not valid JSON"),
    ({"body": {"profile": "no ucp object"}}, "not a UCP platform profile"),
    ({"body": b"<html></html>", "headers": {"Content-Type": "text/html"}}, "not JSON"),
    ({"status": 404, "body": {}}, "answered 404"),
], ids=["slow", "huge", "not-json", "not-a-profile", "html", "missing"])
def test_a_slow_huge_or_invalid_profile_is_refused_and_nothing_changes(client, flower_shop, platform, answer,
                                                                        reason):
    platform.answer("/bad-profile.json", **answer)
    before = shop_rows()

    body = assert_ucp_error(call(client, "post", "/checkout-sessions", create_payload(),
                                 platform.url("/bad-profile.json")), 400, "invalid_profile")

    assert reason in body["detail"]
    assert shop_rows() == before


def test_a_profile_of_a_newer_version_is_unsupported(client, flower_shop, platform):
    platform.answer("/newer.json", body={"ucp": {"version": "2030-01-01"}})

    assert_ucp_error(call(client, "post", "/checkout-sessions", create_payload(), platform.url("/newer.json")),
                     400, "version_unsupported")
    assert not CheckoutSession.objects.exists()


def test_a_refused_profile_is_refused_on_every_call_naming_it(client, flower_shop, platform):
    checkout_id = call(client, "post", "/checkout-sessions", create_payload(),
                       platform.url(platform.profile_path)).json()["id"]

    answer = call(client, "get", f"/checkout-sessions/{checkout_id}", profile="http://10.0.0.7/p.json")

    assert_ucp_error(answer, 400, "invalid_profile")


def test_the_platform_hears_of_the_order_signed_with_the_published_key(client, flower_shop, platform):
    checkout_id, order_id = completed_order(client, platform)

    (row,) = deliveries()
    event = payload_of(row)
    assert (event["event_type"], event["checkout_id"], event["order"]["id"]) == ("order_placed", checkout_id, order_id)
    assert event["order"]["fulfillment"]["expectations"][0]["destination"]["address_country"] == "US"

    assert deliver_order_event.call(*row.args_kwargs["args"])["delivered"] is True
    (delivered,) = [arrived for arrived in platform.requests if arrived.method == "POST"]
    assert delivered.headers["UCP-Agent"] == 'profile="http://testserver/.well-known/ucp"'
    keys = {key["kid"]: key for key in client.get("/.well-known/ucp").json()["signing_keys"]}
    signature = delivered.headers["Request-Signature"]
    key = keys[jwt.get_unverified_header(signature)["kid"]]
    verified = jwt.api_jws.decode_complete(signature, key=jwt.PyJWK(key), algorithms=[key["alg"]],
                                           detached_payload=delivered.body)
    assert json.loads(verified["payload"]) == event


def test_a_checkout_without_a_platform_profile_sends_no_events(client, flower_shop):
    made = call(client, "post", "/checkout-sessions", create_payload(fulfillment=shipping("std-ship")), profile="...")
    assert made.status_code == 201, made.content
    assert call(client, "post", f"/checkout-sessions/{made.json()['id']}/complete", payment()).status_code == 200

    assert deliveries() == []


def test_simulated_shipping_needs_the_configured_secret(client, flower_shop, platform, settings):
    _, order_id = completed_order(client, platform)
    path = f"/testing/simulate-shipping/{order_id}"

    settings.UCP_SIMULATION_SECRET = ""
    assert_ucp_error(client.post(path, headers={"Simulation-Secret": "anything"}), 404, "not_found")
    settings.UCP_SIMULATION_SECRET = SECRET
    assert_ucp_error(client.post(path), 403, "wrong_simulation_secret")
    assert_ucp_error(client.post(path, headers={"Simulation-Secret": SECRET[:-1]}), 403, "wrong_simulation_secret")
    assert_ucp_error(client.get(path, headers={"Simulation-Secret": SECRET}), 405, "method_not_allowed")
    assert_ucp_error(client.post("/testing/simulate-shipping/ord_nothing", headers={"Simulation-Secret": SECRET}),
                     404, "not_found")
    assert [payload_of(row)["event_type"] for row in deliveries()] == ["order_placed"]


def test_simulated_shipping_ships_the_order_and_tells_the_platform(client, flower_shop, platform, settings):
    settings.UCP_SIMULATION_SECRET = SECRET
    checkout_id, order_id = completed_order(client, platform)

    answer = client.post(f"/testing/simulate-shipping/{order_id}", headers={"Simulation-Secret": SECRET})

    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "shipped"
    shipped = payload_of(deliveries()[-1])
    assert (shipped["event_type"], shipped["checkout_id"], shipped["order"]["id"]) == (
        "order_shipped", checkout_id, order_id)
    assert [event["type"] for event in shipped["order"]["fulfillment"]["events"]] == ["shipped"]
    order = call(client, "get", f"/orders/{order_id}", profile=platform.url(platform.profile_path)).json()
    assert order["fulfillment"]["events"][0]["type"] == "shipped"
