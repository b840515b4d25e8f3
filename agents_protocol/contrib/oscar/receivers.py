"""Oscar's and Django's signals that move a handoff on: a guest signing in, an order placed."""
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from oscar.core.loading import get_class

from agents_protocol.contrib.oscar import handoffs

order_placed = get_class("order.signals", "order_placed")


@receiver(user_logged_in, dispatch_uid="agents_protocol_oscar.follow_login")
def follow_login(sender, request, user, **kwargs):
    if request is not None:
        handoffs.follow_login(request, user)


@receiver(order_placed, dispatch_uid="agents_protocol_oscar.resolve_handoff")
def resolve_handoff(sender, order, **kwargs):
    handoffs.resolve(order)
