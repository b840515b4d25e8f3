"""`ucp_order_event`: sent inside the transaction of an order change of a checkout session, with
`checkout` (the CheckoutSession) and `event` ("order_created", "order_shipped" …). A receiver
that enqueues work in that transaction (a webhook delivery) loses nothing when the change rolls
back or commits. agents_protocol.signals re-exports it."""
from django.dispatch import Signal

ucp_order_event = Signal()
