"""Oscar's shipping methods for a UCP checkout: the shop's shipping Repository (Oscar's, or its
fork's) asked for the agent's basket and the buyer's address, each method's charge calculated for
that basket, as Oscar's own checkout does it."""
from django.contrib.auth.models import AnonymousUser
from oscar.core.loading import get_class, get_model

from agents_protocol.contrib.oscar import baskets

Repository = get_class("shipping.repository", "Repository")
Country = get_model("address", "Country")
ProductClass = get_model("catalogue", "ProductClass")
ShippingAddress = get_model("order", "ShippingAddress")

# UCP's address fields (schema.org PostalAddress) → Oscar's address fields
ADDRESS_FIELDS = {"first_name": "first_name", "last_name": "last_name", "street_address": "line1",
                  "extended_address": "line2", "address_locality": "line4", "address_region": "state",
                  "postal_code": "postcode"}


def ships():
    """Whether the shop sells anything to ship: a product class that requires shipping."""
    return ProductClass.objects.filter(requires_shipping=True).exists()


def shipping_address(destination):
    """The unsaved Oscar address of `destination`, or None outside the shop's shipping countries."""
    code = destination.get("address_country")
    country = Country.objects.filter(iso_3166_1_a2=code.upper(), is_shipping_country=True).first() if code else None
    if country is None:
        return None
    fields = {oscar: destination[ucp] for ucp, oscar in ADDRESS_FIELDS.items() if destination.get(ucp)}
    return ShippingAddress(country=country, **fields)


def methods(session, destination):
    """[(method, charge)] for the session's basket shipped to `destination`: what the buyer pays,
    with tax when Oscar knows it (a shipping offer of a voucher already taken off)."""
    basket = baskets.priced_basket(session)
    address = shipping_address(destination)
    if basket is None or address is None:
        return []
    found = Repository().get_shipping_methods(basket, shipping_addr=address, user=AnonymousUser(), request=None)
    return [(method, charge(method.calculate(basket))) for method in found]


def charge(price):
    return price.incl_tax if price.is_tax_known else price.excl_tax
