"""POST /testing/simulate-shipping/{order id}: the UCP conformance suite's way to ship an order.

It exists only on a site that sets UCP_SIMULATION_SECRET (the demo, the tests): elsewhere, and
while UCP is off, 404. A request without that secret in its `Simulation-Secret` header gets 403
(compared in constant time). Shipping records a `shipped` fulfillment event on the order and
sends `ucp_order_event` ("order_shipped"), so the platform's webhook hears of it.
"""
from django.conf import settings
from django.http import HttpResponse
from django.utils.crypto import constant_time_compare
from django.views.decorators.csrf import csrf_exempt

from agents_protocol.checkout import services
from agents_protocol.checkout.models import CommerceConfig
from agents_protocol.core import codec
from agents_protocol.core.errors import CapabilityError, not_found
from agents_protocol.http.exceptions import method_not_allowed
from agents_protocol.transports.ucp import ORDERS, error_body, find_checkout


@csrf_exempt
def simulate_shipping(request, order_id):
    try:
        shipped = ship(request, order_id)
    except CapabilityError as refusal:
        response = HttpResponse(codec.encode(error_body(refusal)), status=refusal.status,
                                content_type=codec.JSON_CONTENT_TYPE)
        for name, value in refusal.headers.items():
            response[name] = value
        return response
    return HttpResponse(codec.encode({"status": "shipped", "event": shipped}), content_type=codec.JSON_CONTENT_TYPE)


def ship(request, order_id):
    secret = getattr(settings, "UCP_SIMULATION_SECRET", "")
    if not secret or not CommerceConfig.load().ucp_enabled:
        raise not_found("Nothing is served at this path.")
    if request.method != "POST":
        raise method_not_allowed(["POST"])
    if not constant_time_compare(request.headers.get("Simulation-Secret", ""), secret):
        raise CapabilityError(403, "wrong_simulation_secret", "The Simulation-Secret header is missing or wrong.")
    return services.add_fulfillment_event(find_checkout(ORDERS, order_id), "shipped")
