"""An agent uses Northwind Goods over real HTTP, knowing only its agents.json."""
import json
import urllib.error
import urllib.parse
import urllib.request
from decimal import Decimal
from importlib.resources import files
from pathlib import Path

from django.core import mail
from django.test import LiveServerTestCase
from jsonschema import Draft7Validator, FormatChecker

from agents_protocol.audit import verify
from agents_protocol.testing import AgentClient, reset_config_cache, reset_rate_limits
from store.models import Item, PendingOrder

REPO_ROOT = Path(__file__).resolve().parents[4]
SHIPPED_SCHEMA = files("agents_protocol") / "schemas" / "agents.schema.json"
# The protocol's own copy sits beside the repository when it is checked out with ../shared.
REFERENCE_SCHEMA = REPO_ROOT.parent / "shared" / "reference" / "agents.schema.json"
PURCHASE = ["search", "detail", "cart.add", "checkout"]


def make_items():
    Item.objects.create(sku="KN-8", title="Chef's knife 8in", blurb="Carbon steel, walnut handle",
                        department="knives", unit_price_cents=6400, quantity_on_hand=3)
    Item.objects.create(sku="KN-3", title="Paring knife", blurb="A small knife for fruit",
                        department="knives", unit_price_cents=1850, quantity_on_hand=0)
    Item.objects.create(sku="BW-2", title="Mixing bowl", blurb="Stoneware, 2 litres",
                        department="bowls", unit_price_cents=2900, quantity_on_hand=12)


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a redirect is an answer to look at, not to follow


def status_and_links(url, method="GET"):
    """(status, every Link header field of the answer), redirects not followed."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirects())
    try:
        with opener.open(urllib.request.Request(url, method=method), timeout=10) as response:
            return response.status, response.headers.get_all("Link") or []
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get_all("Link") or []


def open_as_a_human(url):
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=10) as response:
        return response.status, response.headers["Content-Type"], response.read().decode()


class AgentsOverHttpTests(LiveServerTestCase):
    # The flush after each test would remove what migrations wrote (the agents configuration
    # and this shop's own capability): restore it before each test.
    serialized_rollback = True

    def setUp(self):
        reset_config_cache()
        reset_rate_limits()
        make_items()
        self.agent = AgentClient(self.live_server_url)

    def test_agents_json_is_valid_against_the_canonical_schema(self):
        document = self.agent.document
        schemas = [SHIPPED_SCHEMA] + ([REFERENCE_SCHEMA] if REFERENCE_SCHEMA.exists() else [])
        for schema_file in schemas:
            with self.subTest(schema=str(schema_file)):
                validator = Draft7Validator(json.loads(schema_file.read_text()), format_checker=FormatChecker())
                self.assertEqual([e.message for e in validator.iter_errors(document)], [])
        # The format checks are real: the validators the wheel depends on are installed.
        self.assertFalse(FormatChecker().conforms("not a uri", "uri"))
        self.assertFalse(FormatChecker().conforms("yesterday", "date-time"))
        self.assertEqual(document["site"]["name"], "Northwind Goods")
        self.assertEqual(document["flows"][0]["steps"], PURCHASE)
        self.assertTrue(document["audit"]["enabled"])
        self.assertIn("availability", [c["name"] for c in document["capabilities"]])

    def test_agents_txt_lists_the_same_capabilities(self):
        response = self.agent.request("GET", "/.well-known/agents.txt")
        self.assertEqual(response.status, 200)
        self.assertEqual(response.headers["content-type"], "text/plain; charset=utf-8")
        allowed = [line.split(":", 1)[1].strip() for line in response.body.decode().splitlines()
                   if line.startswith("Allow:")]
        self.assertEqual(allowed, [c["name"] for c in self.agent.document["capabilities"]])

    def test_purchase_flow_from_search_to_the_checkout_handoff(self):
        results = self.agent.call("search", q="knife").data()["results"]
        self.assertEqual([(r["id"], r["price"], r["in_stock"]) for r in results],
                         [("KN-8", 64.0, True), ("KN-3", 18.5, False)])
        detail = self.agent.call("detail", id="KN-8").data()
        self.assertEqual((detail["name"], detail["stock"], detail["currency"]), ("Chef's knife 8in", 3, "EUR"))

        session = self.agent.start_session(agent_name="second-shop-test", purpose="buy a knife")
        added = self.agent.call("cart.add", item_id="KN-8", quantity=2).data()
        self.assertEqual((added["item_id"], added["quantity"], added["cart_size"]), ("KN-8", 2, 1))
        self.agent.call("cart.add", item_id="BW-2").data()
        cart = self.agent.call("cart.view").data()
        self.assertEqual([(i["item_id"], i["quantity"]) for i in cart["items"]], [("KN-8", 2), ("BW-2", 1)])
        self.assertEqual((cart["subtotal"], cart["currency"]), (157.0, "EUR"))
        # The body carries money with two decimals, as the protocol says.
        self.assertIn(b'"subtotal":157.00', self.agent.call("cart.view").body)

        handoff = self.agent.call("checkout").data()
        self.assertTrue(handoff["human_handoff"])
        self.assertTrue(handoff["checkout_url"].startswith(f"{self.live_server_url}/review/"), handoff)
        order = PendingOrder.objects.get(reference=handoff["order_id"])
        self.assertEqual(order.total_cents, 15700)
        self.assertEqual(self.agent.call("cart.view").data()["cart_size"], 0)

        status, content_type, page = open_as_a_human(handoff["checkout_url"])
        self.assertEqual((status, content_type.split(";")[0]), (200, "text/html"))
        self.assertIn("Chef&#x27;s knife 8in", page)
        self.assertIn("Total: 157.00 EUR", page)
        self.assertEqual(self.agent.call("order.status", order_id=handoff["order_id"]).data()["status"], "pending")

        ended = self.agent.end_session()
        audit_path = urllib.parse.urlsplit(ended["audit_url"]).path
        artifact = self.agent.request("GET", audit_path).data()
        self.assertEqual(artifact["session_id"], session["session_id"])
        self.assertEqual([e["capability"] for e in artifact["events"]],
                         ["session.create", "cart.add", "cart.add", "cart.view", "cart.view", "checkout",
                          "cart.view", "order.status", "session.end"])
        verdict = verify(artifact, self.agent.document["audit"]["public_key"])
        self.assertTrue(verdict.ok, verdict.failure)

    def test_the_shops_own_capability_is_published_and_routed(self):
        declared = self.agent.capability("availability")
        self.assertEqual((declared["endpoint"], declared["method"]),
                         ("/.well-known/agents/api/availability/:item_id", "GET"))
        self.assertEqual(declared["params"]["item_id"]["required"], True)
        self.assertEqual(self.agent.call("availability", item_id="BW-2").data(),
                         {"item_id": "BW-2", "in_stock": True, "ships_within_days": 2})
        self.assertEqual(self.agent.call("availability", item_id="KN-3").data()["ships_within_days"], 14)
        self.agent.call("availability", item_id="nope").error(404, "unknown_item")

    def test_refusals_are_envelopes_with_stable_codes(self):
        self.agent.call("cart.view").error(401, "session_required")
        self.agent.call("detail", id="nope").error(404, "unknown_item")
        self.agent.call("browse", category="garden").error(404, "unknown_category")
        self.agent.start_session()
        self.agent.call("cart.add", item_id="KN-8", quantity=4).error(409, "insufficient_stock")
        self.agent.call("cart.add", item_id="KN-8", quantity="two").error(400, "invalid_params")
        self.agent.call("checkout").error(409, "empty_basket")
        response = self.agent.request("GET", "/.well-known/agents/api/no-such-thing")
        self.assertEqual(response.error(404, "not_found")["ok"], False)

    def test_browse_sorts_by_price_within_a_department(self):
        items = self.agent.call("browse", category="knives", sort="price_asc").data()["items"]
        self.assertEqual([i["id"] for i in items], ["KN-3", "KN-8"])
        page = self.agent.call("browse", sort="price_desc", limit=1, page=2).data()
        self.assertEqual(([i["id"] for i in page["items"]], page["total"]), (["BW-2"], 3))

    def test_contact_reaches_the_shop_by_email(self):
        sent = self.agent.call("contact", name="Ada", email="ada@example.com", message="Do you ship to Malta?").data()
        self.assertIs(sent["sent"], True)
        self.assertEqual([(m.subject, m.to) for m in mail.outbox], [("Message from Ada", ["hello@northwind.example"])])

    def test_every_answer_links_agents_json_once(self):
        """One MIDDLEWARE line, first, puts the Link header to agents.json on every answer of the shop:
        documents, the agent API and its refusals, the shop's own pages and errors, redirects."""
        cases = [
            ("GET", "/.well-known/agents.json", 200),
            ("POST", "/.well-known/agents.json", 405),
            ("GET", "/.well-known/agents/api/search?q=knife", 200),
            ("GET", "/.well-known/agents/api/no-such-thing", 404),
            ("GET", "/no-such-page/", 404),
            ("GET", "/admin", 301),  # APPEND_SLASH
            ("GET", "/admin/", 302),  # to the admin's login page
            ("GET", "/admin/login/", 200),
        ]
        for method, path, status in cases:
            with self.subTest(method=method, path=path):
                self.assertEqual(status_and_links(self.live_server_url + path, method),
                                 (status, ['</.well-known/agents.json>; rel="agents"; type="application/json"']))

    def test_prices_never_come_from_the_agent(self):
        self.agent.start_session()
        added = self.agent.call("cart.add", item_id="BW-2", quantity=1, price=0.01, name="Free bowl").data()
        self.assertEqual(added["cart"]["subtotal"], 29.0)
        self.assertEqual(Decimal(str(added["cart"]["items"][0]["unit_price"])), Decimal("29.00"))
