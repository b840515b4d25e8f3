"""UCP order events (`agents_protocol.signals.ucp_order_event`) to the platform's webhook.

The receiver runs inside the order change's transaction and enqueues the delivery there
(outbound/webhooks.py): the full order entity as UCP's order capability asks, in the event
shape the official conformance suite's platform reads (`event_type`, `checkout_id`, `order`).
"""
from urllib.parse import urlsplit

from agents_protocol.core.config import current_config
from agents_protocol.documents.interop import site_base
from agents_protocol.documents.ucp_profile import PROFILE_PATH
from agents_protocol.outbound.webhooks import enqueue_order_event
from agents_protocol.transports import ucp_shapes

# The checkout core's event names → UCP's: an order made is "order_placed" on the wire.
WIRE_EVENTS = {"order_created": "order_placed"}


def deliver_to_platform(sender, checkout, event, **kwargs):
    if not checkout.platform_profile_url:
        return
    origin = site_base(current_config(), shop_origin(checkout))
    payload = {"event_type": WIRE_EVENTS.get(event, event), "checkout_id": checkout.public_id,
               "order": ucp_shapes.order_object(checkout, origin)}
    enqueue_order_event(checkout.platform_profile_url, payload, business_profile_url=f"{origin}{PROFILE_PATH}")


def shop_origin(checkout):
    """The origin the shop served this checkout on: its human page's, as an event has no request."""
    parts = urlsplit(checkout.continue_url)
    return f"{parts.scheme}://{parts.netloc}"
