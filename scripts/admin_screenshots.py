"""Take the admin guide's screenshots in headless Chromium: `make docs-screenshots`.

Starts the real site under gunicorn on a throwaway database, logs into admin as a
throwaway staff user and saves PNGs into docs/images/. The agent activity page shows 30 days
of synthetic calls (`manage.py agents_activity_bench`) and one real purchase a human paid.
"""
import os
import re
import secrets
import sys
import tempfile
from pathlib import Path

import requests
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.api_client import API, AgentClient, ok_data  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.servers import start_site  # noqa: E402

IMAGES = ROOT / "docs" / "images"


def main():
    with tempfile.TemporaryDirectory() as data_dir:
        site = start_site(Path(data_dir), workers=1)
        try:
            password = secrets.token_urlsafe(16)
            site.env["DJANGO_SUPERUSER_PASSWORD"] = password
            site.manage("createsuperuser", "--noinput", "--username", "docs", "--email", "docs@example.com")
            site.manage("load_demo_catalog")
            site.manage("agents_activity_bench", "--calls", "40000", "--rounds", "1")
            agent_buys_and_a_human_pays(site.url)
            capture(site.url, password)
        finally:
            site.stop()


def agent_buys_and_a_human_pays(url):
    agent = AgentClient(url)
    agent.start_session(agent_name="docs-shopper", agent_version="1.0")
    agent.add_to_cart(ok_data(agent.get(f"{API}/search", {"q": "mug"}))["results"][0]["id"], 2)
    checkout_url = ok_data(agent.post(f"{API}/checkout"))["checkout_url"]
    human = requests.Session()
    form = human.get(checkout_url, timeout=10).text
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    confirmed = human.post(checkout_url, timeout=10, data={
        "csrfmiddlewaretoken": csrf, "name": "Docs Reader", "email": "docs@example.com", "shipping_address": "1 Kiln Row"})
    assert "your order is confirmed" in confirmed.text


def capture(url, password):
    IMAGES.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{url}/admin/login/")
        page.fill("#id_username", "docs")
        page.fill("#id_password", password)
        page.click("input[type=submit]")

        shot(page, f"{url}/admin/agents_protocol/", "admin-index.png")
        shot(page, f"{url}/admin/agents_protocol/capability/", "admin-capabilities.png")
        page.goto(f"{url}/admin/agents_protocol/capability/")
        page.click("text=browse")
        page.screenshot(path=IMAGES / "admin-capability-browse.png", full_page=True)
        shot(page, f"{url}/admin/agents_protocol/flow/1/change/", "admin-flow.png")
        shot(page, f"{url}/admin/agents_protocol/siteprofile/1/change/", "admin-site-profile-preview.png")

        page.goto(f"{url}/admin/agents_protocol/sessionconfig/1/change/")
        page.fill("#id_ttl_seconds", "30")
        page.click("input[name=_save]")
        page.screenshot(path=IMAGES / "admin-refused-ttl.png", full_page=True)
        shot(page, f"{url}/admin/agents_protocol/agentcall/?period=30d", "admin-activity.png")
        shot(page, f"{url}/", "storefront.png")
        browser.close()
    print(f"Screenshots written to {IMAGES.relative_to(ROOT)}/")


def shot(page, address, name):
    page.goto(address)
    page.screenshot(path=IMAGES / name, full_page=True)


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "acme.settings")
    main()
