"""Platforms as principals: API keys (hashed, revocable, last used), their 401s in ACP's error
shape (audited), Ed25519 request signatures with a bounded clock skew, a platform's own rate
limit and checkout budget (not the per-address max_sessions), other platforms' checkouts, the
test mode, admin, and the /developers/ test key."""
import base64
import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from nacl.signing import SigningKey

from agents_protocol.checkout.models import CheckoutSession
from agents_protocol.core.models import AuditEvent, RateLimitConfig
from agents_protocol.platforms import keys
from agents_protocol.platforms.models import Platform, PlatformKey
from agents_protocol.platforms.signatures import signed_message
from tests.acp_support import (
    VERSION,
    Acp,
    acp_headers,
    create_body,
    new_platform,
    pay_body,
    shop,  # noqa: F401 (fixture)
)

pytestmark = pytest.mark.django_db


def assert_unauthorized(response, code):
    assert response.status_code == 401, response.content
    assert response.json() == {"type": "invalid_request", "code": code, "message": response.json()["message"]}
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_keys_are_stored_hashed_and_touched_when_used(client, shop):
    platform, raw_key = new_platform()
    stored = PlatformKey.objects.get(platform=platform)
    assert raw_key.startswith("acp_live_") and raw_key not in (stored.key_hash, stored.prefix)
    assert stored.key_hash == keys.hash_key(raw_key) and stored.last_used_at is None
    Acp(client, raw_key).create()
    stored.refresh_from_db()
    assert stored.last_used_at is not None


@pytest.mark.parametrize("authorization, code", [
    (None, "api_key_required"),
    ("Basic dXNlcjpwYXNz", "api_key_required"),
    ("Bearer acp_live_not-a-key", "invalid_api_key"),
])
def test_a_missing_or_unknown_key_is_401_in_acps_shape(client, shop, authorization, code):
    headers = acp_headers("unused")
    del headers["Authorization"]
    if authorization:
        headers["Authorization"] = authorization
    response = client.post("/checkout_sessions", data=json.dumps(create_body()), content_type="application/json",
                           headers=headers)
    assert_unauthorized(response, code)
    assert not CheckoutSession.objects.exists()


def test_a_revoked_key_or_an_expired_or_inactive_platform_is_refused_and_audited(client, shop):
    platform, raw_key = new_platform()
    acp = Acp(client, raw_key)
    checkout = acp.create()
    keys.revoke(PlatformKey.objects.filter(platform=platform))
    assert_unauthorized(acp.get(f"/checkout_sessions/{checkout['id']}"), "invalid_api_key")
    refused = AuditEvent.objects.filter(session__checkout__public_id=checkout["id"], response_status=401)
    assert refused.count() == 1

    for change in ({"expires_at": timezone.now() - timedelta(seconds=1)}, {"is_active": False}):
        other, other_key = new_platform(**change)
        assert_unauthorized(Acp(client, other_key).post("/checkout_sessions", create_body()), "invalid_api_key")


def test_another_platforms_checkout_is_not_found_and_unchanged(client, shop):
    mine = Acp(client, new_platform()[1]).create()
    theirs = Acp(client, new_platform(name="Other")[1])
    path = f"/checkout_sessions/{mine['id']}"
    for response in (theirs.get(path), theirs.post(path, {"line_items": [{"id": "pot_ceramic"}]}),
                     theirs.post(f"{path}/cancel"), theirs.post(f"{path}/complete", pay_body())):
        assert response.status_code == 404 and response.json()["type"] == "invalid_request"
    assert CheckoutSession.objects.get(public_id=mine["id"]).status == CheckoutSession.Status.OPEN


def test_a_platform_counts_against_its_own_rate_limit_not_the_address(client, shop):
    RateLimitConfig.objects.update(requests_per_minute=2, max_sessions=1)
    acp = Acp(client, new_platform(requests_per_minute=5)[1])
    answers = [acp.post("/checkout_sessions", create_body()) for _ in range(6)]
    assert [a.status_code for a in answers] == [201] * 5 + [429]
    assert answers[0]["X-RateLimit-Limit"] == "5"
    assert answers[-1].json()["code"] == "rate_limited" and int(answers[-1]["Retry-After"]) >= 1
    # five live sessions at one address, past max_sessions=1: the platform's budget is its own
    assert CheckoutSession.objects.filter(agent_session__ended_at__isnull=True).count() == 5


def test_a_platform_holds_at_most_its_open_checkouts(client, shop):
    acp = Acp(client, new_platform(max_open_checkouts=2)[1])
    first, _second = acp.create(), acp.create()
    over = acp.post("/checkout_sessions", create_body())
    assert over.status_code == 429 and over.json()["code"] == "too_many_checkouts"
    assert acp.post(f"/checkout_sessions/{first['id']}/cancel").status_code == 200
    assert acp.post("/checkout_sessions", create_body()).status_code == 201


def signed(signing_key, body, timestamp):
    raw = json.dumps(body).encode()
    signature = signing_key.sign(signed_message(timestamp, raw)).signature
    return raw, base64.urlsafe_b64encode(signature).decode().rstrip("=")


def test_a_signing_platform_must_sign_within_the_clock_skew(client, shop):
    signing_key = SigningKey.generate()
    public = base64.urlsafe_b64encode(bytes(signing_key.verify_key)).decode()
    _platform, raw_key = new_platform(signing_key=public)
    body = create_body()

    def send(raw, **headers):
        return client.post("/checkout_sessions", data=raw, content_type="application/json",
                           headers=acp_headers(raw_key, **headers))

    now = timezone.now().isoformat()
    raw, signature = signed(signing_key, body, now)
    assert send(raw, Signature=signature, Timestamp=now).status_code == 201
    assert_unauthorized(send(raw), "invalid_signature")
    assert_unauthorized(send(json.dumps({**body, "currency": "eur"}), Signature=signature, Timestamp=now),
                        "invalid_signature")
    old = (timezone.now() - timedelta(minutes=6)).isoformat()
    raw, signature = signed(signing_key, body, old)
    assert_unauthorized(send(raw, Signature=signature, Timestamp=old), "invalid_signature")
    assert CheckoutSession.objects.count() == 1


def test_a_test_mode_platform_gets_and_may_use_the_test_handler_only(client, shop):
    acp = Acp(client, new_platform(test_mode=True)[1])
    checkout = acp.create(create_body(fulfillment_details={"address": {
        "name": "A", "line_one": "1 Elm St", "city": "Springfield", "state": "IL", "country": "US",
        "postal_code": "62704"}}))
    assert [h["id"] for h in checkout["capabilities"]["payment"]["handlers"]] == ["mock_payment_handler"]
    refused = acp.post(f"/checkout_sessions/{checkout['id']}/complete", pay_body(handler_id="google_pay"))
    assert refused.status_code == 400 and refused.json()["param"] == "$.payment_data.handler_id"


def shown_key(response, label):
    """The value of the read-only input labelled `label` on the page."""
    before_label = response.content.decode().split(f'aria-label="{label}"')[0]
    return before_label.rsplit('value="', 1)[1].split('"')[0]


def test_staff_issue_a_key_shown_once_and_revoke_it(client, shop):
    staff = User.objects.create_superuser("staff", "staff@example.com", "pw-not-used")
    client.force_login(staff)
    platform = Platform.objects.create(name="Agent Co")
    page = client.get(f"/admin/agents_protocol/platform/{platform.pk}/change/")
    assert b"Issue a new API key" in page.content
    issued = client.post(f"/admin/agents_protocol/platform/{platform.pk}/issue-key/")
    assert issued.status_code == 200 and "no-store" in issued["Cache-Control"]
    raw_key = shown_key(issued, "API key")
    assert raw_key.startswith("acp_live_") and keys.live_key(raw_key).platform == platform
    assert raw_key.encode() not in client.get(f"/admin/agents_protocol/platform/{platform.pk}/change/").content

    key = PlatformKey.objects.get(platform=platform)
    client.post("/admin/agents_protocol/platformkey/", {"action": "revoke_keys", "_selected_action": [key.pk]})
    assert keys.live_key(raw_key) is None


def test_admin_writes_the_webhook_secret_and_never_shows_it(client, shop):
    client.force_login(User.objects.create_superuser("staff", "staff@example.com", "pw-not-used"))
    platform = Platform.objects.create(name="Agent Co", webhook_url="https://agent.example/hooks",
                                       webhook_secret="whsec-first")
    change = f"/admin/agents_protocol/platform/{platform.pk}/change/"
    assert b"whsec-first" not in client.get(change).content
    form = {"name": "Agent Co", "is_active": "on", "requests_per_minute": 300, "max_open_checkouts": 1000,
            "webhook_url": "https://agent.example/hooks", "webhook_secret": "",
            "keys-TOTAL_FORMS": 0, "keys-INITIAL_FORMS": 0}
    saved = client.post(change, form)
    assert saved.status_code == 302, saved.context["adminform"].form.errors if saved.context else saved
    assert Platform.objects.get(pk=platform.pk).webhook_secret == "whsec-first"  # left empty: kept
    assert client.post(change, {**form, "webhook_secret": "whsec-second"}).status_code == 302
    assert Platform.objects.get(pk=platform.pk).webhook_secret == "whsec-second"


def test_developers_page_gives_an_expiring_test_key_with_low_limits(client, shop):
    page = client.get("/developers/")
    assert b"csrfmiddlewaretoken" in page.content and b"Get a test-mode key" in page.content
    answer = client.post("/developers/", {"name": "My agent"})
    assert answer.status_code == 200 and answer["Cache-Control"] == "no-store"
    raw_key = shown_key(answer, "Your test-mode API key")
    platform = keys.live_key(raw_key).platform
    assert raw_key.startswith("acp_test_") and platform.test_mode
    assert platform.requests_per_minute == 30 and platform.max_open_checkouts == 5
    assert timedelta(hours=23) < platform.expires_at - timezone.now() <= timedelta(hours=24)
    assert Acp(client, raw_key).create()["protocol"] == {"version": VERSION}
    assert client.post("/developers/", {"name": ""}).status_code == 400


def test_developers_form_refuses_a_post_without_csrf(shop):
    from django.test import Client

    assert Client(enforce_csrf_checks=True).post("/developers/", {"name": "x"}).status_code == 403
    assert not Platform.objects.exists()


def test_an_address_gets_five_test_keys_an_hour(client, shop):
    answers = [client.post("/developers/", {"name": f"agent {n}"}) for n in range(6)]
    assert [a.status_code for a in answers] == [200] * 5 + [429]
    assert answers[-1]["Retry-After"] == "3600"
    assert Platform.objects.count() == 5
