"""Oscar's dashboard links to the agent settings (AGENTS_MENU_ITEM in OSCAR_DASHBOARD_NAVIGATION)."""
from playwright.sync_api import expect

from pottery.tests.helpers import BrowserTestCase

AGENT_SETTINGS = "/admin/agents_protocol/"


class DashboardTests(BrowserTestCase):
    def test_the_dashboard_menu_leads_staff_to_the_agent_settings(self):
        self.sign_in(self.make_customer(is_staff=True, is_superuser=True))
        self.page.goto(f"{self.live_server_url}/dashboard/")
        self.page.click(f"a[href='{AGENT_SETTINGS}']")
        expect(self.page).to_have_url(self.live_server_url + AGENT_SETTINGS)
        expect(self.page.locator("#content")).to_contain_text("Capabilities")

    def test_staff_who_may_not_edit_the_agent_settings_do_not_see_the_entry(self):
        self.sign_in(self.make_customer(is_staff=True))
        self.page.goto(f"{self.live_server_url}/dashboard/")
        expect(self.page.locator("a[href='/dashboard/']").first).to_be_visible()
        expect(self.page.locator(f"a[href='{AGENT_SETTINGS}']")).to_have_count(0)
