"""The ready-made provider for django-oscar shops.

    AGENTS_PROTOCOL = {"PROVIDER": "agents_protocol.contrib.oscar.provider.OscarProvider", …}

Products come from Oscar's catalogue (standalone and parent products are listed; a parent's
children are its variants), prices and stock from the shop's strategy, the cart is an Oscar
basket per agent session, checkout hands that basket to a human in Oscar's own checkout and
order.status reads the order Oscar placed for it. UCP checkouts ship with Oscar's shipping
methods and get its vouchers and site offers (shipping.py, offers.py). Subclass it to change one
part.
"""
from django.conf import settings
from django.core.mail import EmailMessage
from django.urls import reverse

from agents_protocol.contrib.oscar import baskets, catalogue, handoffs, offers, shipping
from agents_protocol.contrib.oscar.conf import oscar_settings
from agents_protocol.contrib.oscar.models import AgentBasket
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.formats import iso_utc
from agents_protocol.core.provider import CallContext, Discount, Handoff, ItemPage, ShippingOption, ShopProvider


class OscarProvider(ShopProvider):
    """Changes run in the transaction the app opens around them (ShopProvider.atomic_changes),
    which holds the lock on the session's basket row from the stock check to the commit."""

    @property
    def max_quantity(self):
        """Oscar refuses a basket of more items than OSCAR_MAX_BASKET_QUANTITY_THRESHOLD, so a quantity above it."""
        return getattr(settings, "OSCAR_MAX_BASKET_QUANTITY_THRESHOLD", None)

    def search(self, context: CallContext, *, query, page, limit):
        return self.page_of(context, catalogue.search(query), page, limit)

    def browse(self, context: CallContext, *, category, sort, page, limit):
        if sort not in catalogue.SORTS:
            raise CapabilityError(400, "invalid_params", f"Unknown sort {sort!r}.",
                                  fields={"sort": f"Must be one of: {', '.join(catalogue.SORTS)}."})
        try:
            products = catalogue.browse(category, sort)
        except catalogue.UnknownCategory:
            slugs = ", ".join(catalogue.category_slugs())
            raise CapabilityError(404, "unknown_category", f"No category {category!r}; use one of: {slugs}.") from None
        return self.page_of(context, products, page, limit)

    def item_detail(self, context: CallContext, *, item_id):
        product = catalogue.find_product(item_id)
        if product is None:
            return None
        pricing = catalogue.strategy()
        detail = {**self.item_summary(context, product, pricing), "description": product.description}
        if product.is_parent:
            return {**detail, "variants": catalogue.variants(product, pricing)}
        detail.update(catalogue.stock_of(catalogue.purchase_info(product, pricing)))
        if product.is_child:
            detail.update(variant_of=catalogue.item_id(product.parent), attributes=catalogue.attributes(product))
        return detail

    def cart_add(self, context: CallContext, *, item_id, quantity):
        in_cart = baskets.set_quantity(context.session, item_id, quantity, add=True)
        return self.line_change(context, item_id, in_cart)

    def cart_view(self, context: CallContext):
        return baskets.contents(baskets.open_basket(context.session))

    def cart_update(self, context: CallContext, *, item_id, quantity):
        in_cart = baskets.set_quantity(context.session, item_id, quantity, add=False)
        return self.line_change(context, item_id, in_cart, removed=in_cart == 0)

    def cart_remove(self, context: CallContext, *, item_id):
        baskets.remove(context.session, item_id)
        return self.line_change(context, item_id, 0, removed=True)

    def checkout(self, context: CallContext):
        link, token = handoffs.hand_off(context.session)
        url = context.absolute_url(reverse("agents_protocol_oscar:checkout-link", kwargs={"token": token}))
        # Oscar creates the order when the human places it: the app gives the agent an order_id
        # for this reference, which the receiver of Oscar's order_placed resolves (handoffs.py).
        return Handoff(checkout_url=url, expires_at=link.link_expires_at, reference=link.reference)

    def order_status(self, context: CallContext, *, order_id):
        """Oscar's orders placed from this session's baskets (the app asks with Oscar's order
        number once a handoff is resolved, and answers for the handoffs still pending itself)."""
        placed = AgentBasket.objects.filter(session=context.session).exclude(order=None).select_related("order")
        if order_id is None:
            return {"orders": [self.order_data(link.order) for link in placed.order_by("-created")]}
        link = placed.filter(order__number=order_id).first()
        if link is None:
            raise CapabilityError(404, "unknown_order", f"This session has no order {order_id!r}.")
        return self.order_data(link.order)

    def contact(self, context: CallContext, *, name, email, message):
        """The message goes by email to the shop's MANAGERS (Django's setting), replies to the sender."""
        recipients = [address for _, address in settings.MANAGERS]
        subject = f"{settings.EMAIL_SUBJECT_PREFIX}Message from {' '.join(name.split())}"
        sent = EmailMessage(subject, message, to=recipients, reply_to=[email]).send() if recipients else 0
        return {"sent": sent > 0}

    @property
    def offers_shipping(self):
        return shipping.ships()

    @property
    def offers_discounts(self):
        return offers.exist()

    def shipping_options(self, context: CallContext, *, destination, lines, subtotal, currency):
        return [ShippingOption(id=method.code, title=str(method.name), amount=charge)
                for method, charge in shipping.methods(context.session, destination)]

    def discounts(self, context: CallContext, *, codes, subtotal, currency):
        return [Discount(code=code, title=title, amount=amount)
                for code, title, amount in offers.apply(context.session, codes)]

    # The answers' shapes; override to add fields.

    def page_of(self, context, products, page, limit):
        start = (page - 1) * limit
        pricing = catalogue.strategy()
        found = [self.item_summary(context, product, pricing) for product in products[start:start + limit]]
        return ItemPage(found, products.count())

    def item_summary(self, context, product, pricing):
        info = catalogue.purchase_info(product, pricing)
        category = product.get_categories().first()
        return {
            "id": catalogue.item_id(product),
            "name": product.get_title(),
            **catalogue.price_with_currency(info),
            "category": category.slug if category else None,
            "in_stock": info.availability.is_available_to_buy,
            "has_variants": product.is_parent,
            "url": context.absolute_url(product.get_absolute_url()),
        }

    def line_change(self, context, item_id, quantity, **extra):
        cart = self.cart_view(context)
        return {"item_id": item_id, "quantity": quantity, **extra, "cart_size": cart["cart_size"], "cart": cart}

    def order_data(self, order):
        cancelled = order.status in oscar_settings.CANCELLED_STATUSES
        return {
            "order_id": order.number,
            "status": "cancelled" if cancelled else "confirmed",
            "shop_status": order.status,
            "total": order.total_incl_tax,
            "currency": order.currency,
            "placed": iso_utc(order.date_placed),
        }
