"""Security headers on the site's pages, no inline script or style in its templates, and admin
for staff only (Django's test client; the browser proof is tests/browser/test_security_csp.py)."""
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from tests.factories import make_product

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
INLINE = re.compile(r"<script(?![^>]*\bsrc=)|<style|\sstyle=|\son[a-z]+=", re.IGNORECASE)


@pytest.mark.parametrize("path", ["/", "/products/mug/", "/admin/login/", "/.well-known/agents.txt",
                                  "/.well-known/agents/api/search?q=mug"])
def test_every_answer_carries_the_strict_policy_and_the_browser_safety_headers(client, path):
    make_product(public_id="mug", slug="mug")
    response = client.get(path)
    assert response.status_code == 200
    policy = {directive.split()[0]: directive.split()[1:] for directive in response["Content-Security-Policy"].split("; ")}
    assert policy["default-src"] == policy["script-src"] == policy["style-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"] and policy["object-src"] == ["'none'"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "strict-origin"
    if response["Content-Type"].startswith("text/html"):
        assert response["X-Frame-Options"] == "DENY"


def test_no_template_has_an_inline_script_style_or_event_handler():
    offenders = [f"{path.relative_to(TEMPLATES)}: {match.group(0)!r}"
                 for path in TEMPLATES.rglob("*.html") for match in INLINE.finditer(path.read_text())]
    assert offenders == []


@pytest.mark.parametrize("path", ["/admin/", "/admin/cart/order/", "/admin/agents_protocol/agentsession/"])
def test_a_signed_in_customer_who_is_not_staff_gets_the_admin_login(client, path):
    get_user_model().objects.create_user("customer", password="a-long-test-password")
    client.login(username="customer", password="a-long-test-password")
    response = client.get(path)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_staff_without_permissions_cannot_open_orders_or_sessions(client):
    get_user_model().objects.create_user("clerk", password="a-long-test-password", is_staff=True)
    client.login(username="clerk", password="a-long-test-password")
    assert client.get("/admin/").status_code == 200
    assert client.get("/admin/cart/order/").status_code == 403
    assert client.get("/admin/agents_protocol/agentsession/").status_code == 403
