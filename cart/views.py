from django.http import Http404
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from .selectors import find_order_by_handoff_token


@never_cache
def handoff(request, token):
    """The page an agent's checkout_url opens: a human reviews the cart the agent prepared."""
    order = find_order_by_handoff_token(token)
    if order is None:
        raise Http404("No checkout with this link.")
    if order.is_expired:
        return render(request, "cart/handoff_expired.html", {"order": order}, status=410)
    return render(request, "cart/handoff.html", {"order": order, "lines": order.lines.all()})
