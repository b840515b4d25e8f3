"""Shared fixtures for browser tests: one headless Debian Chromium per session, a fresh page per
test, and a screenshot in test-artifacts/ when a test fails."""
import os
import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect, sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def browser():
    # Playwright's sync API keeps an asyncio loop running on this thread, which makes Django
    # refuse ORM calls from the test (and from live_server's database flush) unless allowed.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
    if previous is None:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    call_report = getattr(request.node, "report_call", None)
    if call_report is not None and call_report.failed:
        artifacts = request.config.rootpath / "test-artifacts"
        artifacts.mkdir(exist_ok=True)
        page.screenshot(path=artifacts / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', request.node.nodeid)}.png", full_page=True)
    context.close()


WATCH_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolations.push(event.violatedDirective + " " + (event.blockedURI || "inline"));
});
"""


@pytest.fixture
def watched_page(page):
    """The page, with every CSP violation and console error it reports collected
    (test_security_csp.assert_no_violation checks them)."""
    page.console_errors = []
    page.on("console", lambda message: message.type == "error" and page.console_errors.append(
        f"{message.text} ({message.location['url']})"))
    page.on("pageerror", lambda error: page.console_errors.append(str(error)))
    page.on("response", lambda response: response.status >= 400 and page.console_errors.append(
        f"{response.status} {response.url}"))
    page.add_init_script(WATCH_VIOLATIONS)
    return page


@pytest.fixture
def staff_page(live_server, watched_page):
    """The watched page, signed in to admin as a superuser."""
    get_user_model().objects.create_superuser("staff", "staff@example.com", "a-long-test-password")
    watched_page.goto(f"{live_server.url}/admin/login/")
    watched_page.get_by_label("Username").fill("staff")
    watched_page.get_by_label("Password").fill("a-long-test-password")
    watched_page.get_by_role("button", name="Log in").click()
    expect(watched_page.get_by_text("Site administration")).to_be_visible()
    return watched_page
