"""The session inspector in headless Chromium: calls appear on the open page as the agent makes them
(over HTTP, while the page polls), another session's page shows nothing of them, an unknown secret
is a 404, and once the session ends the trail verifies in the browser (WebCrypto) while a tampered
artifact does not. Every page runs under its strict policy with no violation."""
import base64
import json
import re
import secrets
from pathlib import Path

import pytest
import requests
from playwright.sync_api import expect

from agents_protocol.audit import verify
from tests.api_client import API, AgentClient, ok_data
from tests.browser.test_security_csp import assert_no_violation
from tests.factories import make_product
from tests.servers import start_site
from tests.test_checkout_pages import Human

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("key_file")]


@pytest.fixture
def shop(live_server):
    make_product(public_id="mug", slug="mug", name="Celadon mug", stock=10)
    return live_server.url


def start(shop, name):
    client = AgentClient(shop)
    return client, client.start_session(agent_name=name)


def rows(page):
    return page.locator("#calls tbody tr")


def test_calls_appear_on_the_open_page_as_the_agent_makes_them(shop, watched_page):
    client, created = start(shop, "live-agent")
    watched_page.goto(created["inspect_url"])
    expect(rows(watched_page)).to_have_count(1)  # session.create
    expect(watched_page.locator("#session-status")).to_have_text("live")

    client.get(f"{API}/search", {"q": "mug"})
    expect(rows(watched_page)).to_have_count(2)
    expect(rows(watched_page).nth(1).locator(".capability")).to_have_text("search")

    client.add_to_cart("mug", 2)
    refused = client.post(f"{API}/cart/add", {"item_id": "no-such-item"}).json()
    expect(rows(watched_page)).to_have_count(4)
    added, failed = rows(watched_page).nth(2), rows(watched_page).nth(3)
    expect(added.locator(".params")).to_contain_text('"quantity": 2')
    expect(failed).to_have_class(re.compile("refused"))
    expect(failed.locator(".code")).to_have_text(refused["code"])
    expect(failed.locator(".hint")).to_have_text(refused["error"])
    expect(watched_page.locator("#cart")).to_contain_text("2 × Celadon mug (mug)")
    expect(watched_page.locator("#rate-limit")).to_contain_text("calls left this minute")

    handoff = ok_data(client.post(f"{API}/checkout"))
    expect(watched_page.locator("#orders")).to_contain_text(f"{handoff['order_id']}: pending")
    expect(rows(watched_page)).to_have_count(5)
    assert_no_violation(watched_page)


def test_after_the_session_ends_the_page_follows_its_order_until_the_human_pays(shop, watched_page):
    """The usual flow: checkout, the agent ends its session, the human pays later."""
    client, created = start(shop, "handing-off")
    client.add_to_cart("mug", 1)
    handoff = ok_data(client.post(f"{API}/checkout"))
    watched_page.goto(created["inspect_url"])
    ok_data(client.delete(f"{API}/session"))
    expect(watched_page.locator("#session-status")).to_contain_text("ended")
    expect(watched_page.locator("#orders")).to_contain_text(f"{handoff['order_id']}: pending")

    human = Human(handoff["checkout_url"])
    human.open()
    assert "your order is confirmed" in human.confirm().text
    expect(watched_page.locator("#orders")).to_contain_text(f"{handoff['order_id']}: confirmed", timeout=20000)


def test_another_sessions_page_shows_nothing_of_this_session(shop, watched_page):
    agent_client, agent_created = start(shop, "watched-agent")
    other_client, other_created = start(shop, "other-agent")
    watched_page.goto(other_created["inspect_url"])
    expect(rows(watched_page)).to_have_count(1)

    agent_client.add_to_cart("mug", 3)
    agent_client.get(f"{API}/search", {"q": "secret-search-of-the-watched-agent"})
    other_client.get(f"{API}/cart/view")  # the page keeps polling: this call shows up, the others never do
    expect(rows(watched_page)).to_have_count(2)
    expect(rows(watched_page).nth(1).locator(".capability")).to_have_text("cart.view")
    text = watched_page.locator("main").inner_text()
    assert agent_created["session_id"] not in text and "secret-search-of-the-watched-agent" not in text
    assert "watched-agent" not in text
    expect(watched_page.locator("#cart")).to_have_text("Empty.")


def test_an_unknown_secret_is_a_404(shop, page):
    response = page.goto(f"{shop}/.well-known/agents/inspect/{secrets.token_urlsafe(32)}")
    assert response.status == 404


# Non-ASCII, an emoji (a surrogate pair in JavaScript), quotes, a backslash and markup: the page's
# RFC 8785 writer must hash it as Python's rfc8785 did, and show it as text.
AWKWARD_QUERY = 'Çeladon “mug” \\ 🏺 <b>bold</b> "quoted"'


def end_and_open_trail(shop, page):
    client, created = start(shop, "sealed-agent")
    client.add_to_cart("mug", 1)
    client.post(f"{API}/contact", {"name": "Ada", "email": "ada@example.com", "message": "Hello"})
    client.get(f"{API}/search", {"q": AWKWARD_QUERY})
    page.goto(created["inspect_url"])
    ok_data(client.delete(f"{API}/session"))
    expect(page.locator("#trail")).to_be_visible()
    expect(page.locator("#session-status")).to_have_text("ended (deleted)")
    return client, created


def test_the_genuine_trail_verifies_in_the_browser_and_downloads(shop, watched_page):
    _, created = end_and_open_trail(shop, watched_page)
    watched_page.get_by_role("button", name="Verify").click()
    expect(watched_page.locator("#verdict")).to_contain_text("Valid:")
    expect(watched_page.locator("#verdict")).to_have_class("valid")
    expect(watched_page.locator("#checks li")).to_contain_text(
        ["shape ✓", "events 1 to 5: seq, hash, link, time ✓", "root_hash ✓", "published key ✓"])
    expect(rows(watched_page).nth(3).locator(".params")).to_contain_text(json.dumps(AWKWARD_QUERY, ensure_ascii=False))
    assert watched_page.locator("#calls b").count() == 0
    assert watched_page.locator("#checks li").last.inner_text() == "signature ✓"

    with watched_page.expect_download() as download_info:
        watched_page.get_by_role("link", name="Download the artifact").click()
    download = download_info.value
    assert download.suggested_filename == f"{created['session_id']}.audit.json"
    artifact = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    published = requests.get(f"{shop}/.well-known/agents.json", timeout=10).json()["audit"]["public_key"]
    assert verify(artifact, published).ok
    assert_no_violation(watched_page)


def tamper_with_the_artifact(page, change):
    """Serve the page the real artifact with `change` applied, as a man in the middle would."""
    def handle(route):
        artifact = route.fetch().json()
        change(artifact)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(artifact))
    page.route("**/artifact", handle)


def edit_a_parameter(artifact):
    artifact["events"][1]["params"]["quantity"] = 5


def drop_an_event(artifact):
    del artifact["events"][2]


def change_the_root_hash(artifact):
    artifact["root_hash"] = "0" * 64


def forge_the_signature(artifact):
    artifact["signature"] = base64.b64encode(bytes(64)).decode()


def relabel_the_session(artifact):
    artifact["session_id"] = "ses_someone_else"


def relabel_the_site(artifact):
    artifact["site"] = "https://evil.example"


def drop_the_key_id(artifact):
    del artifact["key_id"]


@pytest.mark.parametrize("change, failure", [
    (edit_a_parameter, "Invalid: event 2 hash: its content does not match its event_hash (edited)"),
    (drop_an_event, "Invalid: event 3 seq"),
    (change_the_root_hash, "Invalid: root_hash"),
    (forge_the_signature, "Invalid: signature"),
    (relabel_the_session, "Invalid: session: session_id is not the session its chain opened"),
    (relabel_the_site, "Invalid: site: site is not the site its chain opened on"),
    (drop_the_key_id, "Invalid: shape: an artifact needs the fields"),
])
def test_a_tampered_artifact_fails_the_verification_in_the_browser(shop, page, change, failure):
    end_and_open_trail(shop, page)
    tamper_with_the_artifact(page, change)
    page.get_by_role("button", name="Verify").click()
    expect(page.locator("#verdict")).to_contain_text(failure)
    expect(page.locator("#verdict")).to_have_class("invalid")


def test_a_valid_chain_signed_by_another_key_fails(shop, page):
    end_and_open_trail(shop, page)

    def another_key(route):
        document = route.fetch().json()
        document["audit"]["public_key"] = "MCowBQYDK2VwAyEA" + "A" * 43 + "="
        route.fulfill(status=200, content_type="application/json", body=json.dumps(document))
    page.route("**/agents.json", another_key)
    page.get_by_role("button", name="Verify").click()
    expect(page.locator("#verdict")).to_contain_text("Invalid: published key")


def test_the_page_follows_a_session_served_by_gunicorns_sync_workers(tmp_path, page):
    site = start_site(tmp_path, workers=2)
    try:
        site.manage("load_demo_catalog")
        client, created = start(site.url, "gunicorn-agent")
        page.goto(created["inspect_url"])
        expect(rows(page)).to_have_count(1)
        for count in range(2, 6):  # each call may land on either worker; every one appears
            client.get(f"{API}/cart/view")
            expect(rows(page)).to_have_count(count)
        client.add_to_cart("mug-celadon", 1)
        expect(page.locator("#cart")).to_contain_text("(mug-celadon)")
        ok_data(client.delete(f"{API}/session"))
        page.get_by_role("button", name="Verify").click()
        expect(page.locator("#verdict")).to_contain_text("Valid:")
    finally:
        site.stop()
