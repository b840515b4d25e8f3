"""The front door for agent developers: one page (also folded into the home page) with the
well-known URLs, the scenarios, the inspector, the demo's limits and a ten-line example; and,
while ACP is on, a test-mode ACP key without staff (a form with CSRF): a platform of its own
that only the test payment handler serves, with low limits, expiring after a day. Each address
gets at most KEYS_PER_ADDRESS keys an hour (django-ratelimit, in the shared rate-limit cache)."""
from datetime import timedelta

from django import forms
from django.http import HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone
from django.views.decorators.http import require_http_methods
from django_ratelimit.core import get_usage

from agents_protocol.checkout.models import CommerceConfig
from agents_protocol.core.networks import address_network, client_address
from agents_protocol.platforms import keys
from agents_protocol.platforms.models import Platform

TEMPLATE = "agents/developers.html"
KEYS_PER_ADDRESS = "5/h"
TEST_KEY_LIFETIME = timedelta(hours=24)
TEST_LIMITS = {"requests_per_minute": 30, "max_open_checkouts": 5}


class TestKeyForm(forms.Form):
    name = forms.CharField(max_length=60, label="Your agent's name", help_text="Shown to the shop's staff.")


@require_http_methods(["GET", "HEAD", "POST"])
def developers(request):
    acp_enabled = CommerceConfig.load().acp_enabled
    form = TestKeyForm(request.POST if request.method == "POST" else None)
    context = {"acp_enabled": acp_enabled, "form": form}
    if request.method == "POST" and acp_enabled and form.is_valid():
        if over_limit(request):
            response = HttpResponse(render_to_string("429.html", {"minutes": 60}), status=429)
            response["Retry-After"] = "3600"
            return response
        context["test_key"], context["expires_at"] = test_key(form.cleaned_data["name"])
    response = render(request, TEMPLATE, context, status=400 if form.is_bound and form.errors else 200)
    response["Cache-Control"] = "no-store"  # a key is shown once
    return response


def over_limit(request):
    usage = get_usage(request, group="acme.developers.test-key", rate=KEYS_PER_ADDRESS, increment=True,
                      key=lambda group, request: address_network(client_address(request)))
    return usage is not None and usage["should_limit"]


def test_key(name):
    """A new test-mode platform named after the agent: (its raw key, when it expires)."""
    expires_at = timezone.now() + TEST_KEY_LIFETIME
    platform = Platform.objects.create(name=f"{name} (test key from /developers/)", test_mode=True,
                                       expires_at=expires_at, **TEST_LIMITS)
    return keys.issue_key(platform), expires_at
