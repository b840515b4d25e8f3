"""The human checkout handoff: the page an agent's checkout_url opens, and its three actions.

Every rule lives in services.py; these views pick the page for the order's state and
turn refusals into that page with the right status. After a change they redirect to the
page (POST, redirect, GET), so a reload never submits twice.

The agent holds the same link it gave the human, so the human's details are shown again only
to the browser that typed them (kept in its session, and after confirming only if the order
was confirmed with them), never read back from the order.
"""
from functools import wraps

from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from . import services
from .forms import CheckoutForm, ReduceLineForm
from .models import Order
from .payments import get_payment_backend
from .selectors import find_order_by_handoff_token, handoff_lines

CLOSED_PAGES = {
    Order.Status.CONFIRMED: ("cart/handoff_confirmed.html", 200),
    Order.Status.CANCELLED: ("cart/handoff_cancelled.html", 200),
    Order.Status.EXPIRED: ("cart/handoff_expired.html", 410),
}



def not_indexed(view):
    """The link is a bearer secret: a page reached through one posted in public stays out of search engines."""

    @wraps(view)
    def answer(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        response["X-Robots-Tag"] = "noindex, nofollow"
        return response

    return answer


@not_indexed
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])  # HEAD: link checkers and previews
def handoff(request, token):
    order = _order_or_404(token)
    if not order.is_open:
        return _closed_page(request, order)
    if request.method != "POST":
        return _review_page(request, token, order, _details_form(request, order))
    form = CheckoutForm(request.POST)
    if not form.is_valid():
        return _review_page(request, token, order, form, status=400)
    request.session[_details_key(order)] = form.details()
    return _run(request, token, order, form, lambda: services.confirm_order(order, form.customer()))


@not_indexed
@never_cache
@require_POST
def reduce_line(request, token, line_id):
    order = _order_or_404(token)
    form = ReduceLineForm(request.POST)
    if not form.is_valid():
        error = services.HandoffError("Choose a quantity below the one in the order.", status=400)
        return _review_page(request, token, order, _details_form(request, order), error=error)
    quantity = form.cleaned_data["quantity"]
    return _run(request, token, order, _details_form(request, order),
                lambda: services.reduce_line(order, line_id, quantity))


@not_indexed
@never_cache
@require_POST
def cancel(request, token):
    order = _order_or_404(token)
    return _run(request, token, order, _details_form(request, order), lambda: services.cancel_order(order))


def _run(request, token, order, form, action):
    """Run `action`, then go back to the page; a refusal shows the review again with its message."""
    try:
        action()
    except services.HandoffError as error:
        return _review_page(request, token, order, form, error=error)
    except services.OrderClosed:
        pass  # confirmed by a racing submit, cancelled or expired: the page shows which
    return redirect("cart:handoff", token=token)


def _order_or_404(token):
    order = find_order_by_handoff_token(token)
    if order is None:
        raise Http404("No checkout with this link.")
    return order


def _closed_page(request, order):
    services.expire_if_overdue(order)
    template, status = CLOSED_PAGES[order.current_status]
    context = {"order": order, "lines": order.lines.all(), "details": _details_confirmed_here(request, order)}
    return render(request, template, context, status=status)


def _details_confirmed_here(request, order):
    """What this browser typed, if the order was confirmed with exactly that; None otherwise.

    Another browser holding the link (the agent's) may have typed details of its own on a
    refused attempt: those are not the human's, so nothing is shown to it.
    """
    typed = request.session.get(_details_key(order))
    confirmed = {"name": order.customer_name, "email": order.customer_email,
                 "shipping_address": order.shipping_address}
    return typed if typed == confirmed else None


def _review_page(request, token, order, form, *, error=None, status=None):
    order.refresh_from_db()  # a refused service may have left the instance mid-change
    if not order.is_open:
        return _closed_page(request, order)
    context = {
        "token": token,
        "order": order,
        "lines": handoff_lines(order),
        "form": form,
        "error": error,
        "payment_notice": get_payment_backend().notice,
    }
    return render(request, "cart/handoff.html", context, status=status or (error.status if error else 200))


def _details_form(request, order):
    """The details form, filled with what this browser typed on a refused attempt (none for another)."""
    return CheckoutForm(initial=request.session.get(_details_key(order), {}))


def _details_key(order):
    return f"cart.handoff.details.{order.pk}"
