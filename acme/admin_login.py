"""The admin's sign-in form, with failed sign-ins limited per client address and per username.

Django's admin counts nothing: a password could be guessed as fast as the server answers.
Failed sign-ins are counted with django-ratelimit in the shared rate-limit cache
(RATELIMIT_USE_CACHE, the one the agent API counts in, so every worker and instance shares the
count): FAILED_SIGN_INS for each client address (an IPv6 one by its /64) and for each username.
Once either is used up, every sign-in to it is answered 429 with Retry-After until its window
ends, the right password too, so guessing on stops paying.
"""
import math

from django.contrib import admin
from django.http import HttpResponse
from django.template.loader import render_to_string
from django_ratelimit.core import get_usage

from agents_protocol.core.networks import address_network, client_address

FAILED_SIGN_INS = "10/15m"  # per window; django-ratelimit's rate syntax
COUNTED_BY = {
    "acme.admin-login.address": lambda group, request: address_network(client_address(request)),
    "acme.admin-login.username": "post:username",
}


def login(request, extra_context=None):
    """admin.site.login, refused while the address or the username is locked out."""
    if request.method != "POST":
        return admin.site.login(request, extra_context)
    wait = seconds_locked_out(request)
    if wait:
        return locked_out(wait)
    response = admin.site.login(request, extra_context)
    if not request.user.is_authenticated:
        count_failure(request)
    return response


def seconds_locked_out(request):
    """Seconds until the longest lockout of this request's address and username ends; 0 if none."""
    waits = [max(1, usage["time_left"]) for usage in usages(request, increment=False)
             if usage["count"] >= usage["limit"]]
    return max(waits, default=0)


def count_failure(request):
    usages(request, increment=True)


def usages(request, increment):
    return [usage for group, key in COUNTED_BY.items()
            if (usage := get_usage(request, group=group, key=key, rate=FAILED_SIGN_INS, method="POST",
                                   increment=increment)) is not None]


def locked_out(wait):
    response = HttpResponse(render_to_string("429.html", {"minutes": math.ceil(wait / 60)}), status=429)
    response["Retry-After"] = str(wait)
    return response
