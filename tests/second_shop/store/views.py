from decimal import Decimal

from django.conf import settings
from django.shortcuts import get_object_or_404, render

from .models import PendingOrder


def review_order(request, token):
    """The page a human opens from an agent's checkout link: what was ordered, and the total."""
    order = get_object_or_404(PendingOrder, token=token)
    lines = [
        {**line, "line_total": Decimal(line["quantity"] * line["unit_price_cents"]).scaleb(-2)}
        for line in order.lines
    ]
    return render(request, "store/review.html", {
        "order": order, "lines": lines, "total": Decimal(order.total_cents).scaleb(-2),
        "currency": settings.STORE_CURRENCY,
    })
