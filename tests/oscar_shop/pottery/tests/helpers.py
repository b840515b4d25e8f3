"""What Kiln & Co's tests share: a live server of the shop with its catalogue, and an agent."""
import urllib.error
import urllib.request

from django.test import LiveServerTestCase

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
