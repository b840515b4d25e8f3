"""The front door for agent developers: the home page's fold and /developers/ name the well-known
URLs, the scenarios, the inspector and the limits (in process), and their dozen-line example (the
same as docs/agent-testing.md's) completes a purchase flow against a live server."""
import html
import re
import subprocess
import sys

import pytest
import requests

from agents_protocol.models import RateLimitConfig
from catalog import scenarios
from catalog.demo import load_demo_catalog
from tests.api_client import IN_PROCESS_URL, Site
from tests.servers import ROOT

TIMEOUT = 10
CODE = re.compile(r'<pre class="agent-door__code"><code>(.*?)</code></pre>', re.S)
DOCS_EXAMPLE = re.compile(r"```python\n(.*?)```", re.S)
MUST_SAY = [
    "/.well-known/agents.txt", "/.well-known/agents.json", "/llms.txt", "/.well-known/agents/openapi.json", "/mcp",
    "inspect_url", "rate_limit", "ttl_seconds",
    scenarios.SOLD_OUT, scenarios.LAST_ONE, scenarios.PRICE_CHANGE, scenarios.DISCONTINUED,
    "sandbox:rate-limit", "sandbox:short-session", "sandbox:expired-checkout",
    "4242 4242 4242 4242", "4000 0000 0000 0002", "4000 0000 0000 3063",
]


def install_the_demo():
    load_demo_catalog()
    scenarios.install_scenarios()


@pytest.fixture
def demo(http):
    """The demo in process: its URL, and `demo.http` to reach it."""
    install_the_demo()
    return Site(IN_PROCESS_URL, http)


@pytest.fixture
def live_demo(live_server):
    """The demo over real HTTP, for the example, which runs in a process of its own."""
    install_the_demo()
    return Site(live_server.url, requests)


def page(site, url):
    """The page at `url` of `site` (a tests/api_client.py Site)."""
    response = site.http.get(url, timeout=TIMEOUT)
    assert response.status_code == 200
    return response.text


def example_on(text):
    return html.unescape(CODE.search(text).group(1))


@pytest.mark.parametrize("path", ["/", "/developers/"])
def test_the_page_says_how_to_start(demo, path):
    text = page(demo, demo + path)
    for needed in MUST_SAY:
        assert needed in text, needed
    assert f'api = "{demo}/.well-known/agents/api"' in example_on(text)


def test_a_category_page_keeps_to_the_shop(demo):
    text = page(demo, f"{demo}/?category=mugs")
    assert "agent-door" not in text
    assert 'href="/developers/"' in text  # the footer still points there


def test_the_docs_show_the_pages_example(demo):
    docs = (ROOT / "docs" / "agent-testing.md").read_text()
    documented = DOCS_EXAMPLE.search(docs).group(1)
    on_page = example_on(page(demo, f"{demo}/developers/"))
    assert documented.strip() == on_page.strip().replace(demo, "http://127.0.0.1:8000")
    assert len(documented.strip().splitlines()) <= 12  # a dozen lines, the import included
    for needed in MUST_SAY:
        assert needed in docs, needed


def test_the_example_completes_a_purchase_flow(live_demo):
    code = example_on(page(live_demo, f"{live_demo}/developers/"))

    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)

    assert ran.returncode == 0, ran.stderr
    watch, give = ran.stdout.splitlines()
    inspect_url = watch.removeprefix("Watch this session: ")
    checkout_url = give.removeprefix("Give this link to your human: ")
    assert inspect_url.startswith(f"{live_demo}/.well-known/agents/inspect/")
    assert checkout_url.startswith(f"{live_demo}/checkout/")
    human_page = page(live_demo, checkout_url)
    assert "An AI agent prepared this cart for you." in human_page
    assert "Confirm order" in human_page
    assert page(live_demo, inspect_url)


def test_the_example_refused_a_session_says_why_and_stops(live_demo):
    """Run once too often from one address, it prints the server's sentence, not a KeyError."""
    RateLimitConfig.objects.update(max_sessions=1)
    code = example_on(page(live_demo, f"{live_demo}/developers/"))
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and again.stdout == ""
    assert "This address already has 1 live session, the most it may have" in again.stderr and "Traceback" not in again.stderr
