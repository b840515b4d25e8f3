"""Bad input to UCP's REST binding, in process against the conformance suite's flower shop
(load_ucp_flower_shop): malformed JSON, 1,000-deep nesting, a 5 MB body, unknown fields, wrong
types, ids of other checkout sessions, a replay with a changed body, and UCP-Agent profiles
that are private, slow, huge or invalid. Each gets UCP's error (the REST binding's structure,
tests/ucp_suite/schemas.py's ERROR) with its 4xx status, never a 500, and changes nothing the
shop stores: its products, stock, carts and orders, checkout sessions, and which agent sessions
exist (a refused call is still written to its session's audit trail).
"""
import json
import uuid
from urllib.parse import urlsplit

import pytest
from django.apps import apps
from django.core.management import call_command

from agents_protocol.models import AgentSession
from tests.platform_server import PlatformServer
from tests.servers import ROOT
from tests.ucp_suite import schemas

FLOWER_SHOP = ROOT.parent / "shared" / "peers" / "ucp-conformance" / "test_data" / "flower_shop"
PLATFORM_PROFILE = json.loads((FLOWER_SHOP.parent.parent / "shopping-agent-test.json").read_text()
                              .replace("{webhook_port}", "9"))
ITEM, OTHER_ITEM = "bouquet_roses", "bouquet_sunflowers"
FIVE_MB = 5 * 1024 * 1024
NOT_STORED_BY_THE_SHOP = {"admin", "auth", "contenttypes", "sessions"}


@pytest.fixture
def platform():
    with PlatformServer() as server:
        server.answer("/profile.json", body=PLATFORM_PROFILE)
        yield server


@pytest.fixture
def shop(db, settings, platform):
    """The flower shop, a platform on loopback that the outbound fetch may reach, and short limits."""
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "OUTBOUND_ALLOWED_NETWORKS": ["127.0.0.0/8", "::1/128"],
                                "OUTBOUND_TIMEOUT_SECONDS": 1, "OUTBOUND_MAX_BYTES": 64 * 1024}
    call_command("load_ucp_flower_shop", str(FLOWER_SHOP), verbosity=0)


def shop_state():
    """Every row the shop stores, model by model (the site's apps' models and the checkout core's),
    and the agent sessions that exist."""
    models = [model for model in apps.get_models()
              if model._meta.app_label not in NOT_STORED_BY_THE_SHOP | {"agents_protocol"}
              or model.__module__.startswith("agents_protocol.checkout")]
    state = {model._meta.label: list(model.objects.order_by("pk").values()) for model in models}
    state["agent sessions"] = list(AgentSession.objects.order_by("pk").values("public_id", "ended_at"))
    return state


def headers(platform, profile="/profile.json", **extra):
    agent = f'profile="{platform.url(profile)}"' if profile.startswith("/") else f'profile="{profile}"'
    return {"UCP-Agent": agent, "request-signature": "test", "idempotency-key": str(uuid.uuid4()),
            "request-id": str(uuid.uuid4()), **extra}


def create_body(item=ITEM, quantity=1):
    return {"line_items": [{"item": {"id": item}, "quantity": quantity}], "currency": "USD"}


def send(client, method, path, body, request_headers):
    """`body` as JSON (bytes and str as they are) to `path`."""
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return client.generic(method, path, data, content_type="application/json", headers=request_headers)


def sessions_path(client):
    """checkout-sessions under the REST endpoint the profile names."""
    profile = client.get("/.well-known/ucp").json()
    endpoint = profile["ucp"]["services"]["dev.ucp.shopping"]["rest"]["endpoint"]
    return f"{urlsplit(endpoint).path.rstrip('/')}/checkout-sessions"


def unique(name):
    """A path of its own on the platform: the shop keeps what a profile URL gave for a while."""
    return f"/{uuid.uuid4().hex}-{name}"


def create(client, platform, **body):
    answer = send(client, "POST", sessions_path(client), create_body(**body), headers(platform))
    assert answer.status_code == 201, answer.content
    return answer.json()


def assert_ucp_error(answer, status):
    """`answer` is UCP's error structure with `status`; its body."""
    assert answer.status_code == status, answer.content[:2000]
    assert answer["Content-Type"].startswith("application/json")
    body = answer.json()
    assert not schemas.problems(schemas.validator(schemas.ERROR), body), body
    return body


def update_body(checkout, **changes):
    lines = [{"id": line["id"], "item": {"id": line["item"]["id"]}, "quantity": line["quantity"]}
             for line in checkout["line_items"]]
    return {"id": checkout["id"], "line_items": lines, **changes}


MALFORMED = [b'{"line_items": [', b"not json", b"\xff\xfe{}", b"[]", b'"a checkout"', b"null", b"",
             b'{"line_items": [{"item": {"id": "bouquet_roses"}, "quantity": 1}]}x']


@pytest.mark.parametrize("body", MALFORMED, ids=range(len(MALFORMED)))
@pytest.mark.parametrize("operation", ["create", "update", "complete"])
def test_malformed_json_is_a_400(client, shop, platform, operation, body):
    checkout = create(client, platform)
    before = shop_state()
    method, path = {"create": ("POST", sessions_path(client)),
                    "update": ("PUT", f"{sessions_path(client)}/{checkout['id']}"),
                    "complete": ("POST", f"{sessions_path(client)}/{checkout['id']}/complete")}[operation]
    if body == b"" and operation == "complete":
        body = b"{"  # complete without a body is a request of its own (payment missing), not malformed
    assert_ucp_error(send(client, method, path, body, headers(platform)), 400)
    assert shop_state() == before


def test_a_thousand_deep_nesting_is_a_400(client, shop, platform):
    before = shop_state()
    nested = '{"line_items": ' + "[" * 1000 + "]" * 1000 + ', "currency": "USD"}'
    assert_ucp_error(send(client, "POST", sessions_path(client), nested, headers(platform)), 400)
    deep_buyer = '{"line_items": [], "buyer": ' + '{"a": ' * 1000 + "1" + "}" * 1000 + "}"
    assert_ucp_error(send(client, "POST", sessions_path(client), deep_buyer, headers(platform)), 400)
    assert shop_state() == before


def test_a_5_mb_body_is_a_413(client, shop, platform):
    checkout = create(client, platform)
    before = shop_state()
    huge = json.dumps({**create_body(), "buyer": {"first_name": "x" * FIVE_MB}})
    assert_ucp_error(send(client, "POST", sessions_path(client), huge, headers(platform)), 413)
    huge_update = json.dumps({**update_body(checkout), "buyer": {"first_name": "x" * FIVE_MB}})
    assert_ucp_error(send(client, "PUT", f"{sessions_path(client)}/{checkout['id']}", huge_update, headers(platform)),
                     413)
    assert shop_state() == before


UNKNOWN_FIELDS = [{"surprise": 1}, {"totals": [{"type": "total", "amount": 1}]}, {"status": "completed"},
                  {"order": {"id": "order_1"}}]


@pytest.mark.parametrize("extra", UNKNOWN_FIELDS, ids=lambda extra: next(iter(extra)))
def test_fields_a_request_may_not_set_are_refused_naming_the_field(client, shop, platform, extra):
    """A platform cannot set what only the shop decides (totals, status, the order) nor a field
    the checkout does not have."""
    checkout = create(client, platform)
    before = shop_state()
    name = next(iter(extra))
    created = assert_ucp_error(send(client, "POST", sessions_path(client), {**create_body(), **extra},
                                    headers(platform)), 400)
    updated = assert_ucp_error(send(client, "PUT", f"{sessions_path(client)}/{checkout['id']}",
                                    {**update_body(checkout), **extra}, headers(platform)), 400)
    assert created["messages"][0]["path"] == updated["messages"][0]["path"] == f"$.{name}"
    assert shop_state() == before


WRONG_TYPES = [
    {"line_items": "bouquet_roses"},
    {"line_items": [{"item": {"id": ITEM}, "quantity": "2"}]},
    {"line_items": [{"item": {"id": ITEM}, "quantity": 1.5}]},
    {"line_items": [{"item": {"id": ITEM}, "quantity": -1}]},
    {"line_items": [{"item": {"id": ITEM}, "quantity": 10**30}]},
    {"line_items": [{"item": {"id": ITEM}, "quantity": True}]},
    {"line_items": [{"item": {"id": 7}, "quantity": 1}]},
    {"line_items": [{"item": ITEM, "quantity": 1}]},
    {"line_items": [None]},
    {"line_items": [{"item": {"id": ITEM}, "quantity": 1}], "currency": 840},
    {"line_items": [{"item": {"id": ITEM}, "quantity": 1}], "buyer": ["email"]},
    {"line_items": [{"item": {"id": ITEM}, "quantity": 1}], "buyer": {"email": 5}},
    {"line_items": [{"item": {"id": ITEM}, "quantity": 1}], "discounts": {"codes": "10OFF"}},
    {"line_items": [{"item": {"id": ITEM}, "quantity": 1}], "fulfillment": {"methods": {"type": "shipping"}}},
    {"line_items": [{"item": {"id": ITEM}, "quantity": 1}], "payment": "card"},
]


@pytest.mark.parametrize("body", WRONG_TYPES, ids=range(len(WRONG_TYPES)))
def test_wrong_types_are_a_400(client, shop, platform, body):
    before = shop_state()
    assert_ucp_error(send(client, "POST", sessions_path(client), body, headers(platform)), 400)
    assert shop_state() == before


def test_a_checkout_that_does_not_exist_is_a_404(client, shop, platform):
    before = shop_state()
    path = f"{sessions_path(client)}/{uuid.uuid4()}"
    assert_ucp_error(client.get(path, headers=headers(platform)), 404)
    assert_ucp_error(send(client, "PUT", path, {"id": path.rsplit("/", 1)[1], "line_items": []}, headers(platform)),
                     404)
    assert_ucp_error(send(client, "POST", f"{path}/cancel", {}, headers(platform)), 404)
    assert_ucp_error(client.get(f"/orders/{uuid.uuid4()}", headers=headers(platform)), 404)
    assert shop_state() == before


def test_ids_of_another_checkout_never_reach_it(client, shop, platform):
    mine, theirs = create(client, platform), create(client, platform, item=OTHER_ITEM)
    path, their_path = f"{sessions_path(client)}/{mine['id']}", f"{sessions_path(client)}/{theirs['id']}"
    theirs = client.get(their_path, headers=headers(platform)).json()
    # Their checkout's id in the body of an update of mine.
    before = shop_state()
    assert_ucp_error(send(client, "PUT", path, update_body(theirs), headers(platform)), 400)
    assert shop_state() == before
    # Their line's id in my checkout: refused, or a line of mine (lines are the items').
    with_their_line = update_body(mine)
    with_their_line["line_items"][0]["id"] = theirs["line_items"][0]["id"]
    answer = send(client, "PUT", path, with_their_line, headers(platform))
    if answer.status_code == 200:
        assert [line["item"]["id"] for line in answer.json()["line_items"]] == [ITEM]
        assert theirs["line_items"][0]["id"] not in [line["id"] for line in answer.json()["line_items"]]
    else:
        assert_ucp_error(answer, 400)
    assert client.get(their_path, headers=headers(platform)).json() == theirs


def test_a_replay_with_a_changed_body_is_a_409(client, shop, platform):
    replayed = headers(platform)
    first = send(client, "POST", sessions_path(client), create_body(quantity=1), replayed)
    assert first.status_code == 201
    before = shop_state()
    assert_ucp_error(send(client, "POST", sessions_path(client), create_body(quantity=2), replayed), 409)
    checkout = first.json()
    path = f"{sessions_path(client)}/{checkout['id']}"
    update_headers = headers(platform)
    assert send(client, "PUT", path, update_body(checkout), update_headers).status_code == 200
    before = shop_state()
    changed = update_body(checkout)
    changed["line_items"][0]["quantity"] = 3
    assert_ucp_error(send(client, "PUT", path, changed, update_headers), 409)
    assert shop_state() == before


def refused_profile(client, platform, profile):
    before = shop_state()
    answer = send(client, "POST", sessions_path(client), create_body(), headers(platform, profile=profile))
    body = assert_ucp_error(answer, 400)
    assert shop_state() == before
    return body


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "127.1", "2130706433", "0.0.0.0"])
def test_a_profile_on_a_private_address_is_never_fetched(client, shop, platform, settings, host):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "OUTBOUND_ALLOWED_NETWORKS": []}
    body = refused_profile(client, platform, f"http://{host}:{platform.port}/profile.json")
    assert body["messages"][0]["code"] == "invalid_profile"
    assert platform.requests == []


def test_a_slow_profile_is_refused_after_the_timeout(client, shop, platform):
    slow, dripping = unique("slow.json"), unique("dripping.json")
    platform.answer(slow, body=PLATFORM_PROFILE, delay=3)
    assert refused_profile(client, platform, slow)["messages"][0]["code"] == "invalid_profile"
    platform.answer(dripping, body=PLATFORM_PROFILE, drip=0.05)
    assert refused_profile(client, platform, dripping)["messages"][0]["code"] == "invalid_profile"


def test_a_huge_profile_is_refused(client, shop, platform):
    huge, announced, unannounced = {**PLATFORM_PROFILE, "padding": "x" * (2 * 1024 * 1024)}, unique("huge.json"), \
        unique("unannounced.json")
    platform.answer(announced, body=huge)
    assert refused_profile(client, platform, announced)["messages"][0]["code"] == "invalid_profile"
    platform.answer(unannounced, body=json.dumps(huge).encode(), length=False)  # no Content-Length
    assert refused_profile(client, platform, unannounced)["messages"][0]["code"] == "invalid_profile"


INVALID_PROFILES = [
    ("not JSON", b"<html>a profile</html>", {"Content-Type": "text/html"}),
    ("broken JSON", b'{"ucp": {', None),
    ("not a profile", b'{"name": "a platform"}', None),
    ("a newer version", json.dumps({"ucp": {"version": "2099-01-01", "capabilities": []}}).encode(), None),
    ("deep JSON", b'{"ucp": ' + b"[" * 5000 + b"]" * 5000 + b"}", None),
    ("a 404", b"{}", None),
]


@pytest.mark.parametrize("name, body, content_type", INVALID_PROFILES, ids=[case[0] for case in INVALID_PROFILES])
def test_an_invalid_profile_is_refused(client, shop, platform, name, body, content_type):
    path = unique("invalid.json")
    platform.answer(path, status=404 if name == "a 404" else 200, body=body, headers=content_type)
    code = refused_profile(client, platform, path)["messages"][0]["code"]
    assert code == ("version_unsupported" if name == "a newer version" else "invalid_profile")


@pytest.mark.parametrize("url", ["http://[::1/profile.json", "http:///profile.json", "https://:443/profile.json",
                                 "http://127.0.0.1:99999/profile.json"])
def test_a_broken_profile_url_is_refused(client, shop, platform, url):
    assert refused_profile(client, platform, url)["messages"][0]["code"] == "invalid_profile"
    assert platform.requests == []
