"""What Kiln & Co's tests share: a live server of the shop with its catalogue, and an agent."""
import os
import urllib.error
import urllib.request

from django.contrib.auth import get_user_model
from django.contrib.staticfiles.testing import StaticLiveServerTestCase
from django.db import connections
from django.test import LiveServerTestCase
from playwright.sync_api import expect, sync_playwright

from agents_protocol.testing import AgentClient, reset_config_cache, reset_rate_limits
from pottery.catalogue import make_shop


class ShopTestCase(LiveServerTestCase):
    # The flush after each test would remove what migrations wrote (the agents configuration,
    # Oscar's own rows): restore it before each test.
    serialized_rollback = True

    def setUp(self):
        reset_config_cache()
        reset_rate_limits()
        self.products = make_shop()

    def new_agent(self, **session):
        agent = AgentClient(self.live_server_url)
        agent.start_session(agent_name="kiln-test", **session)
        return agent

    def checkout(self, agent, *lines):
        for item_id, quantity in lines:
            agent.call("cart.add", item_id=item_id, quantity=quantity).data()
        return agent.call("checkout").data()


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
PASSWORD = "glaze-and-kiln-42"


class BrowserTestCase(ShopTestCase, StaticLiveServerTestCase):
    """A human in headless Chromium (Debian's, driven by Playwright), on the shop's own pages."""

    def setUp(self):
        super().setUp()
        # Playwright's sync API runs an asyncio loop on this thread. Django then refuses ORM calls
        # unless told they are safe, and keeps another database connection for the loop's
        # context: so the browser starts after Django's per-test setup and stops before its
        # teardown, which restore and flush the database on the thread's own connection.
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        self.page = self.browser.new_page()
        self.page.set_default_timeout(15_000)

    def tearDown(self):
        connections.close_all()  # the connection the test opened in the loop's context
        self.browser.close()
        self.playwright.stop()
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
        super().tearDown()

    def make_customer(self, **fields):
        return get_user_model().objects.create_user(
            username="grace", email="grace@example.com", password=PASSWORD, **fields)

    def sign_in(self, user):
        """Sign in on Oscar's own login page."""
        self.page.goto(f"{self.live_server_url}/accounts/login/")
        self.page.fill("#id_login-username", user.email)
        self.page.fill("#id_login-password", PASSWORD)
        self.page.click("button[name=login_submit]")
        expect(self.page.locator("body")).to_contain_text("Account")


def open_page(url):
    """(status, body) of a GET as a human's browser would send it, redirects not followed."""
    class NoRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirects())
    try:
        with opener.open(url, timeout=10) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers, error.read().decode()
