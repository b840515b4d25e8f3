"""ACP order events: an order change of a platform's checkout session (the checkout core's
`ucp_order_event`, sent in the change's transaction) to the platform's webhook as a WebhookEvent
of `openapi.agentic_checkout_webhook.yaml`: `order_create` for a new order, `order_update` after,
the full Order as `data`, to the webhook staff set on the platform in admin (none set: nothing is
sent; outbound/acp_webhooks.py delivers it).
"""
from agents_protocol.core.config import current_config
from agents_protocol.core.money import in_minor_units
from agents_protocol.documents.interop import site_base
from agents_protocol.outbound.acp_webhooks import Webhook, enqueue_acp_order_event
from agents_protocol.platforms.models import Platform
from agents_protocol.transports import acp_shapes
from agents_protocol.transports.ucp_events import shop_origin

ORDER_CREATED = "order_created"  # the checkout core's event for a new order
ADJUSTMENT_FIELDS = ("id", "type", "occurred_at", "status", "line_items", "amount", "currency", "description",
                     "reason")


def deliver_to_platform(sender, checkout, event, **kwargs):
    if checkout.platform_id is not None and checkout.platform.webhook_url:
        enqueue_acp_order_event(PLATFORM_WEBHOOK, checkout.platform_id, webhook_event(checkout, event))


def platform_webhook(platform_id):
    """The platform's webhook, read at each delivery attempt; None once it has none (or is gone)."""
    platform = Platform.objects.filter(pk=platform_id).exclude(webhook_url="").first()
    return None if platform is None else Webhook(platform.webhook_url, platform.webhook_secret)


PLATFORM_WEBHOOK = f"{__name__}.{platform_webhook.__name__}"


def webhook_event(checkout, event):
    """The WebhookEvent of the checkout core's `event` ("order_created", "order_shipped" …)."""
    origin = site_base(current_config(), shop_origin(checkout))
    return {"type": "order_create" if event == ORDER_CREATED else "order_update",
            "data": order_object(checkout, origin)}


def order_object(checkout, origin):
    shipped = any(event.get("type") == "shipped" for event in checkout.fulfillment_events)
    return {
        "type": "order",
        "id": checkout.order_key,
        "checkout_session_id": checkout.public_id,
        "permalink_url": checkout.continue_url or f"{origin}/checkout_sessions/{checkout.public_id}",
        "status": "shipped" if shipped else "confirmed",
        "line_items": [order_line(line, checkout.currency, shipped) for line in checkout.lines],
        "fulfillments": fulfillments(checkout, shipped),
        "adjustments": [{key: value for key, value in adjustment.items() if key in ADJUSTMENT_FIELDS}
                        for adjustment in checkout.adjustments],
        "totals": acp_shapes.totals(checkout),
    }


def order_line(line, currency, shipped):
    unit_price, quantity = in_minor_units(line["unit_price"], currency), line["quantity"]
    return {"id": line_id(line), "title": line["title"], "product_id": line["item_id"],
            "quantity": {"ordered": quantity, "current": quantity, "fulfilled": quantity if shipped else 0},
            "unit_price": unit_price, "subtotal": unit_price * quantity,
            "status": "fulfilled" if shipped else "processing"}


def line_id(line):
    return f"li_{line['item_id']}"  # as the checkout session's line items name it (acp_shapes.line_items)


def fulfillments(checkout, shipped):
    if not checkout.selected_option_id:
        return []
    return [{"id": f"ful_{checkout.order_key}", "type": "shipping", "status": "shipped" if shipped else "pending",
             "line_items": [{"id": line_id(line), "quantity": line["quantity"]} for line in checkout.lines],
             "events": [{key: event[key] for key in ("id", "type", "occurred_at")}
                        for event in checkout.fulfillment_events]}]
