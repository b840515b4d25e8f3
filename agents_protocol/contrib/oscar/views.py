"""The page a checkout link opens: the agent's basket becomes the human's, then Oscar's checkout."""
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache

from agents_protocol.contrib.oscar import handoffs
from agents_protocol.contrib.oscar.conf import oscar_settings


@never_cache
def open_checkout_link(request, token):
    try:
        handoffs.open_link(token, request.basket)
    except handoffs.LinkClosed as closed:
        return render(request, "agents_protocol_oscar/link_closed.html", {"reason": closed.reason}, status=410)
    return redirect(reverse(oscar_settings.CHECKOUT_URL_NAME))
