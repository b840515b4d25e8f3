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


@pytest.fixture(scope="module")
def platform_server():
    with PlatformServer() as server:
        server.answer("/profile.json", body=PLATFORM_PROFILE)
        yield server


@pytest.fixture
def platform(platform_server):
    """The platform on loopback; `requests` lists what this test's calls fetched."""
    platform_server.requests.clear()
    return platform_server


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


def error_problem(answer, status, code=None):
    """What keeps `answer` from being UCP's error structure with `status` (and `code`), or None."""
    if answer.status_code != status or not answer["Content-Type"].startswith("application/json"):
        return f"{answer.status_code} {answer['Content-Type']}: {answer.content[:300]!r}"
    body = answer.json()
    problems = schemas.problems(schemas.validator(schemas.ERROR), body)
    if not problems and code is not None and body["messages"][0]["code"] != code:
        problems = [f"code {body['messages'][0]['code']}, not {code}"]
    return "; ".join(problems) or None


def assert_ucp_error(answer, status):
    """`answer` is UCP's error structure with `status`; its body."""
    problem = error_problem(answer, status)
    assert problem is None, problem
    return answer.json()


def assert_each_refused(cases, answer_of, status, code=None):
    """`answer_of(case)` is UCP's error with `status` (and `code`) for each of `cases`."""
    problems = {repr(case)[:120]: error_problem(answer_of(case), status, code) for case in cases}
    assert {case: problem for case, problem in problems.items() if problem} == {}


def update_body(checkout, **changes):
    lines = [{"id": line["id"], "item": {"id": line["item"]["id"]}, "quantity": line["quantity"]}
             for line in checkout["line_items"]]
    return {"id": checkout["id"], "line_items": lines, **changes}


MALFORMED = [b'{"line_items": [', b"not json", b"\xff\xfe{}", b"[]", b'"a checkout"', b"null", b"",
             b'{"line_items": [{"item": {"id": "bouquet_roses"}, "quantity": 1}]}x']


@pytest.mark.parametrize("operation", ["create", "update", "complete"])
def test_malformed_json_is_a_400(client, shop, platform, operation):
    checkout = create(client, platform)
    before = shop_state()
    method, path = {"create": ("POST", sessions_path(client)),
                    "update": ("PUT", f"{sessions_path(client)}/{checkout['id']}"),
                    "complete": ("POST", f"{sessions_path(client)}/{checkout['id']}/complete")}[operation]
    # complete without a body is a request of its own (no payment), not a malformed one
    bodies = [body for body in MALFORMED if body or operation != "complete"]
    assert_each_refused(bodies, lambda body: send(client, method, path, body, headers(platform)), 400)
    assert shop_state() == before


def test_a_thousand_deep_nesting_is_a_400(client, shop, platform):
    before = shop_state()
    nested = ['{"line_items": ' + "[" * 1000 + "]" * 1000 + ', "currency": "USD"}',
              '{"line_items": [], "buyer": ' + '{"a": ' * 1000 + "1" + "}" * 1000 + "}"]
    assert_each_refused(nested, lambda body: send(client, "POST", sessions_path(client), body, headers(platform)), 400)
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


# What only the shop decides (totals, status, the order), and a field the checkout does not have.
NOT_SETTABLE = [{"surprise": 1}, {"totals": [{"type": "total", "amount": 1}]}, {"status": "completed"},
                {"order": {"id": "order_1"}}]


def test_fields_a_request_may_not_set_are_refused_naming_the_field(client, shop, platform):
    checkout = create(client, platform)
    before = shop_state()
    path = f"{sessions_path(client)}/{checkout['id']}"
    for extra in NOT_SETTABLE:
        created = assert_ucp_error(send(client, "POST", sessions_path(client), {**create_body(), **extra},
                                        headers(platform)), 400)
        updated = assert_ucp_error(send(client, "PUT", path, {**update_body(checkout), **extra}, headers(platform)),
                                   400)
        assert created["messages"][0]["path"] == updated["messages"][0]["path"] == f"$.{next(iter(extra))}"
    assert shop_state() == before


ONE_ROSE = [{"item": {"id": ITEM}, "quantity": 1}]
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
    {"line_items": ONE_ROSE, "currency": 840},
    {"line_items": ONE_ROSE, "buyer": ["email"]},
    {"line_items": ONE_ROSE, "buyer": {"email": 5}},
    {"line_items": ONE_ROSE, "discounts": {"codes": "10OFF"}},
    {"line_items": ONE_ROSE, "fulfillment": {"methods": {"type": "shipping"}}},
    {"line_items": ONE_ROSE, "payment": "card"},
]


def test_wrong_types_are_a_400(client, shop, platform):
    before = shop_state()
    assert_each_refused(WRONG_TYPES, lambda body: send(client, "POST", sessions_path(client), body, headers(platform)),
                        400)
    assert shop_state() == before


def test_a_checkout_that_does_not_exist_is_a_404(client, shop, platform):
    before = shop_state()
    path = f"{sessions_path(client)}/{uuid.uuid4()}"
    assert_ucp_error(client.get(path, headers=headers(platform)), 404)
    assert_ucp_error(send(client, "PUT", path, {"id": path.rsplit("/", 1)[1], "line_items": ONE_ROSE},
                          headers(platform)), 404)
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


def assert_profiles_refused(client, platform, profiles, code="invalid_profile"):
    """A create naming each of `profiles` (a path on the platform, or a URL) is refused with
    `code`, and the shop is as it was."""
    before = shop_state()
    assert_each_refused(profiles, lambda profile: send(client, "POST", sessions_path(client), create_body(),
                                                       headers(platform, profile=profile)), 400, code)
    assert shop_state() == before


def test_a_profile_on_a_private_address_is_never_fetched(client, shop, platform, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "OUTBOUND_ALLOWED_NETWORKS": []}
    hosts = ["127.0.0.1", "localhost", "[::1]", "127.1", "2130706433", "0.0.0.0", "[::ffff:127.0.0.1]"]
    urls = []
    for host in hosts:  # each at a path of its own, which no earlier fetch has left in the cache
        urls.append(f"http://{host}:{platform.port}{unique('profile.json')}")
        platform.answer(urlsplit(urls[-1]).path, body=PLATFORM_PROFILE)
    assert_profiles_refused(client, platform, urls)
    assert platform.requests == []


def test_a_slow_profile_is_refused_after_the_timeout(client, shop, platform):
    slow, dripping = unique("slow.json"), unique("dripping.json")
    platform.answer(slow, body=PLATFORM_PROFILE, delay=3)
    platform.answer(dripping, body=PLATFORM_PROFILE, drip=0.05)
    assert_profiles_refused(client, platform, [slow, dripping])


def test_a_huge_profile_is_refused(client, shop, platform):
    huge, announced, unannounced = {**PLATFORM_PROFILE, "padding": "x" * (2 * 1024 * 1024)}, unique("huge.json"), \
        unique("unannounced.json")
    platform.answer(announced, body=huge)
    platform.answer(unannounced, body=json.dumps(huge).encode(), length=False)  # no Content-Length
    assert_profiles_refused(client, platform, [announced, unannounced])


INVALID_PROFILES = [
    (200, b"<html>a profile</html>", {"Content-Type": "text/html"}),
    (200, b'{"ucp": {', None),
    (200, b'{"name": "a platform"}', None),
    (200, b'{"ucp": ' + b"[" * 5000 + b"]" * 5000 + b"}", None),
    (404, b"{}", None),
]


def test_an_invalid_profile_is_refused(client, shop, platform):
    paths = []
    for status, body, content_type in INVALID_PROFILES:
        paths.append(unique("invalid.json"))
        platform.answer(paths[-1], status=status, body=body, headers=content_type)
    assert_profiles_refused(client, platform, paths)


def test_a_profile_of_a_newer_version_is_refused(client, shop, platform):
    newer = unique("newer.json")
    platform.answer(newer, body={"ucp": {"version": "2099-01-01", "capabilities": []}})
    assert_profiles_refused(client, platform, [newer], code="version_unsupported")


def test_a_broken_profile_url_is_refused(client, shop, platform):
    urls = ["http://[::1/profile.json", "http:///profile.json", "https://:443/profile.json",
            "http://127.0.0.1:99999/profile.json"]
    assert_profiles_refused(client, platform, urls)
    assert platform.requests == []
