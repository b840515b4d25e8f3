"""Shop staff configure agents in a real browser; agents see every save at once."""
import pytest
import requests
from playwright.sync_api import expect

from agents_protocol.models import SessionConfig

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def agents_txt(live_server):
    return requests.get(f"{live_server.url}/.well-known/agents.txt", timeout=10).text


def test_staff_change_the_rate_limit_and_agents_txt_follows(live_server, staff_page):
    staff_page.goto(f"{live_server.url}/admin/agents_protocol/ratelimitconfig/")
    staff_page.get_by_label("Requests per minute").fill("120")
    staff_page.get_by_role("button", name="Save", exact=True).click()
    expect(staff_page.locator(".messagelist")).to_contain_text("was changed successfully")
    assert "Rate-Limit: 120/minute" in agents_txt(live_server)


def test_staff_disable_a_capability_and_it_disappears(live_server, staff_page):
    staff_page.goto(f"{live_server.url}/admin/agents_protocol/capability/")
    staff_page.get_by_role("link", name="contact", exact=True).click()
    staff_page.get_by_label("Enabled").uncheck()
    staff_page.get_by_role("button", name="Save", exact=True).click()
    expect(staff_page.locator(".messagelist")).to_contain_text("was changed successfully")
    assert "Allow: contact" not in agents_txt(live_server)
    assert "Allow: search" in agents_txt(live_server)


def test_a_ttl_below_60_is_refused_on_the_page_and_nothing_changes(live_server, staff_page):
    staff_page.goto(f"{live_server.url}/admin/agents_protocol/sessionconfig/")
    staff_page.get_by_label("Ttl seconds").fill("30")
    staff_page.get_by_role("button", name="Save", exact=True).click()
    expect(staff_page.locator(".errornote")).to_be_visible()
    expect(staff_page.locator(".errorlist")).to_contain_text("greater than or equal to 60")
    assert SessionConfig.load().ttl_seconds == 1800
    assert "Session-TTL: 1800s" in agents_txt(live_server)


def test_site_profile_shows_a_live_preview_of_both_documents(live_server, staff_page):
    staff_page.goto(f"{live_server.url}/admin/agents_protocol/siteprofile/")
    previews = staff_page.locator("pre.agents-preview")
    expect(previews).to_have_count(2)
    expect(previews.first).to_contain_text("Allow: checkout")
    expect(previews.last).to_contain_text('"schema_version": "0.1.0"')
