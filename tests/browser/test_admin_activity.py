"""Shop staff read the Agent activity page in a real browser after scripted agent traffic over
HTTP (three agents, sessionless calls, refusals, a human paying one checkout): the tables, the
charts' data and the CSV files hold the numbers that traffic implies, under the site's CSP, in
light and dark themes, with no token, email or message in clear; without the permission, no page."""
import csv
import io
from collections import Counter, defaultdict
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from playwright.sync_api import expect

from agents_protocol.models import RateLimitConfig
from tests.api_client import API, AgentClient
from tests.browser.test_security_csp import assert_no_violation
from tests.factories import make_product
from tests.test_checkout_pages import DETAILS, Human

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ACTIVITY = "/admin/agents_protocol/agentcall/"
PASSWORD = "a-long-test-password"
CONTACT = {"name": "Grace Hopper", "email": "grace@example.com", "message": "Are the bowls oven safe?"}
NO_SESSION = ("(no session, or unnamed)", "")


class Traffic:
    """Agents calling the API, every answer tallied: what the page must show."""

    def __init__(self, base_url):
        self.base_url = base_url
        self.calls = []  # (capability, (agent name, version), refusal code or "")
        self.tokens = []
        self.sessions = {}  # (agent name, version) → capabilities answered in its session

    def agent(self, name=None, version=""):
        client = AgentClient(self.base_url)
        key = NO_SESSION
        if name:
            key = (name, version)
            client.start_session(agent_name=name, agent_version=version)
            self.tokens.append(client.token)
            self.calls.append(("session.create", key, ""))
            self.sessions[key] = set()
        client.key = key
        return client

    def call(self, client, capability, method, path, params=None):
        response = client.request(method, path, params)
        body = response.json()
        code = "" if body["ok"] else body["code"]
        self.calls.append((capability, client.key, code))
        if not code and client.key in self.sessions:
            self.sessions[client.key].add(capability)
        return body

    def per_capability(self):
        rows = defaultdict(Counter)
        for capability, _, code in self.calls:
            rows[capability]["calls"] += 1
            rows[capability][code or "answered"] += 1
        return rows

    def per_agent(self):
        rows = defaultdict(lambda: [0, 0])
        for _, key, code in self.calls:
            rows[key][0] += 1
            rows[key][1] += bool(code)
        return rows

    def funnel(self):
        reached = [set(self.sessions)]
        for step in ({"search", "browse"}, {"cart.add"}, {"checkout"}):
            reached.append({key for key in reached[-1] if self.sessions[key] & step})
        return [len(sessions) for sessions in reached]


@pytest.fixture
def traffic(live_server):
    make_product(public_id="speckled-mug", slug="speckled-mug", name="Speckled Mug", price=Decimal("24.00"), stock=10)
    make_product(public_id="tea-bowl", slug="tea-bowl", name="Tea Bowl", price=Decimal("18.00"), stock=10)
    traffic = Traffic(live_server.url)

    first = traffic.agent("shopper", "1.0")  # searches, buys, and the human pays
    traffic.call(first, "search", "GET", f"{API}/search", {"q": "mug"})
    traffic.call(first, "detail", "GET", f"{API}/detail/speckled-mug")
    traffic.call(first, "cart.add", "POST", f"{API}/cart/add", {"item_id": "speckled-mug", "quantity": 2})
    handoff = traffic.call(first, "checkout", "POST", f"{API}/checkout")["data"]
    human = Human(handoff["checkout_url"])
    human.open()
    assert "your order is confirmed" in human.confirm().text

    second = traffic.agent("shopper", "2.0")  # a bad quantity, then checks out without paying
    traffic.call(second, "browse", "GET", f"{API}/browse")
    traffic.call(second, "cart.add", "POST", f"{API}/cart/add", {"item_id": "tea-bowl", "quantity": "many"})
    traffic.call(second, "cart.add", "POST", f"{API}/cart/add", {"item_id": "tea-bowl", "quantity": 1})
    traffic.call(second, "checkout", "POST", f"{API}/checkout")

    anonymous = traffic.agent()  # no session: searches, and a cart it cannot have
    for query in ("bowl", "vase", "teapot"):
        traffic.call(anonymous, "search", "GET", f"{API}/search", {"q": query})
    traffic.call(anonymous, "cart.view", "GET", f"{API}/cart/view")

    third = traffic.agent("bargain-bot", "0.3")  # writes to the shop, then hammers the search
    traffic.call(third, "contact", "POST", f"{API}/contact", CONTACT)
    limit = RateLimitConfig.load()
    limit.requests_per_minute = 2
    limit.save()
    for _ in range(6):
        traffic.call(third, "search", "GET", f"{API}/search", {"q": "cheap"})
    assert any(code == "rate_limited" for _, _, code in traffic.calls)
    return traffic


def log_in(page, base_url, username):
    page.goto(f"{base_url}/admin/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text("Site administration")).to_be_visible()


def table(page, name):
    """The rows of a table of the page as lists of cell texts."""
    return [row.locator("td").all_text_contents() for row in page.locator(f"#table-{name} tbody tr").all()]


def bar_values(page, chart):
    return [float(value) for value in page.locator(f"#chart-{chart} rect").evaluate_all(
        "bars => bars.map(bar => bar.dataset.value)")]


def download(page, base_url, name, query="period=7d"):
    response = page.request.get(f"{base_url}{ACTIVITY}{name}.csv?{query}")
    assert response.status == 200 and response.headers["content-type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(response.text())))


def test_staff_see_what_the_agents_did(live_server, traffic, watched_page):
    page = watched_page
    get_user_model().objects.create_superuser("staff", "staff@example.com", PASSWORD)
    log_in(page, live_server.url, "staff")
    page.get_by_role("link", name="Agent activity").click()
    expect(page.locator("h1")).to_have_text("Agent activity")

    total = len(traffic.calls)
    expect(page.locator("#total-calls")).to_have_text(str(total))
    assert table(page, "days")[-1][1:] == ["3", str(total)]
    assert bar_values(page, "sessions")[-1] == 3 and bar_values(page, "calls")[-1] == total

    headers = page.locator("#table-capabilities thead th").all_text_contents()
    expected = traffic.per_capability()
    shown = {row[0]: dict(zip(headers, row, strict=True)) for row in table(page, "capabilities")}
    assert set(shown) == set(expected)
    for capability, counts in expected.items():
        row = shown[capability]
        assert (int(row["Calls"]), int(row["Answered"])) == (counts["calls"], counts["answered"])
        assert int(row["Refused"]) == counts["calls"] - counts["answered"]
        for code in set(headers[5:]):
            assert int(row[code]) == counts[code], (capability, code)
    assert {"rate_limited", "invalid_params", "session_required"} <= set(headers[5:])
    search_segments = page.locator("#chart-capabilities rect").evaluate_all(
        "bars => bars.filter(bar => bar.textContent.startsWith('search:')).map(bar => Number(bar.dataset.value))")
    assert sum(search_segments) == expected["search"]["calls"]

    funnel = traffic.funnel() + [1]
    assert [row[:2] for row in table(page, "funnel")] == [
        [name, str(count)] for name, count in zip(
            ["sessions", "searched", "added to cart", "checked out", "paid"], funnel, strict=True)]
    assert bar_values(page, "funnel") == funnel
    assert funnel == [3, 3, 2, 2, 1]

    agents = {(row[0], row[1]): (int(row[2]), int(row[3])) for row in table(page, "agents")}
    assert agents == {key: tuple(counts) for key, counts in traffic.per_agent().items()}

    latency = {row[0]: row for row in table(page, "latency")}
    assert set(latency) == {capability for capability, counts in expected.items() if counts["answered"]}
    assert all(0 < float(row[2]) <= float(row[3]) for row in latency.values())

    assert download(page, live_server.url, "funnel")[1:] == table(page, "funnel")
    assert download(page, live_server.url, "agents")[1:] == table(page, "agents")

    html = page.content() + "".join(str(download(page, live_server.url, name))
                                    for name in ("days", "capabilities", "funnel", "agents", "latency"))
    for secret in (*traffic.tokens, DETAILS["email"], DETAILS["name"], CONTACT["email"], CONTACT["message"],
                   CONTACT["name"]):
        assert secret not in html
    assert_no_violation(page)


def test_filters_narrow_the_page_to_one_capability_or_one_agent(live_server, traffic, page):
    get_user_model().objects.create_superuser("staff", "staff@example.com", PASSWORD)
    log_in(page, live_server.url, "staff")
    page.goto(f"{live_server.url}/admin/agents_protocol/capability/")
    page.get_by_role("link", name="cart.add", exact=True).click()
    page.get_by_role("link", name="Calls, refusals and latency of cart.add (last 30 days)").click()
    expect(page.locator("#id_capability")).to_have_value("cart.add")
    assert [row[0] for row in table(page, "capabilities")] == ["cart.add"]
    assert int(page.locator("#total-calls").inner_text()) == traffic.per_capability()["cart.add"]["calls"]

    page.locator("#id_capability").select_option("")
    page.locator("#id_agent").fill("bargain-bot")
    page.get_by_role("button", name="Show").click()
    bot_calls = traffic.per_agent()[("bargain-bot", "0.3")]
    expect(page.locator("#total-calls")).to_have_text(str(bot_calls[0]))
    assert [row[:4] for row in table(page, "agents")] == [["bargain-bot", "0.3", str(bot_calls[0]), str(bot_calls[1])]]

    page.locator("#id_period").select_option("custom")
    page.locator("#id_first").fill("2026-02-01")
    page.locator("#id_last").fill("2026-01-01")
    page.get_by_role("button", name="Show").click()
    expect(page.locator(".errornote")).to_have_text("The range ends before it starts.")


def test_an_agent_cannot_name_itself_a_spreadsheet_formula(live_server, page):
    formula = "=HYPERLINK(\"https://evil.example\",\"open\")"
    agent = AgentClient(live_server.url)
    agent.start_session(agent_name=formula, agent_version="@SUM(1)")
    assert agent.get(f"{API}/search", {"q": "mug"}).status_code == 200
    get_user_model().objects.create_superuser("staff", "staff@example.com", PASSWORD)
    log_in(page, live_server.url, "staff")
    page.goto(f"{live_server.url}{ACTIVITY}")
    assert [formula, "@SUM(1)"] in [row[:2] for row in table(page, "agents")]  # shown as text on the page
    rows = download(page, live_server.url, "agents")
    assert [f"'{formula}", "'@SUM(1)"] in [row[:2] for row in rows]
    assert not any(cell.startswith(("=", "@")) for row in rows for cell in row)


def test_the_charts_follow_the_admins_light_and_dark_themes(live_server, traffic, page):
    get_user_model().objects.create_superuser("staff", "staff@example.com", PASSWORD)
    log_in(page, live_server.url, "staff")
    colours = {}
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.goto(f"{live_server.url}{ACTIVITY}")
        colours[scheme] = page.evaluate("""() => {
            const style = element => getComputedStyle(document.querySelector(element));
            return {text: style('#chart-calls text').fill, body: style('body').color,
                    background: style('body').backgroundColor, bar: style('#chart-calls rect').fill};
        }""")
        assert colours[scheme]["text"] == colours[scheme]["body"]  # labels in the theme's text colour
        assert colours[scheme]["bar"] not in (colours[scheme]["background"], "none", "rgb(0, 0, 0)")
    assert colours["light"]["text"] != colours["dark"]["text"]
    assert colours["light"]["bar"] != colours["dark"]["bar"]


def test_only_users_with_the_permission_see_the_page(live_server, traffic, page):
    clerk = get_user_model().objects.create_user("clerk", "clerk@example.com", PASSWORD, is_staff=True)
    clerk.user_permissions.add(Permission.objects.get(codename="view_capability"))
    log_in(page, live_server.url, "clerk")
    expect(page.get_by_role("link", name="Capabilities")).to_be_visible()
    expect(page.get_by_role("link", name="Agent activity")).to_have_count(0)
    assert page.goto(f"{live_server.url}{ACTIVITY}").status == 403
    assert page.request.get(f"{live_server.url}{ACTIVITY}funnel.csv").status == 403

    clerk.user_permissions.add(Permission.objects.get(codename="view_agent_activity"))
    page.goto(f"{live_server.url}/admin/")
    page.get_by_role("link", name="Agent activity").click()
    expect(page.locator("#total-calls")).to_have_text(str(len(traffic.calls)))
