"""Shipping rates, discount codes and buyers' addresses of the shop's checkouts (what the
provider answers agents' checkout sessions from: acme/agents.py)."""
import secrets
from decimal import ROUND_HALF_UP, Decimal

from django.db import transaction

from .models import CustomerAddress, DiscountCode, ShippingPromotion, ShippingRate

CENT = Decimal("0.01")
FREE_LEVEL = "standard"  # the service level a shipping promotion makes free
# schema.org PostalAddress fields (what agents send) → CustomerAddress fields
ADDRESS_FIELDS = {"street_address": "street_address", "address_locality": "locality", "address_region": "region",
                  "postal_code": "postal_code", "address_country": "country"}


def shipping_options(country, subtotal, item_ids):
    """[(rate, price, title)]: the cheapest-to-find rate of each service level for `country`
    (its own rate before the default one), cheapest first; standard shipping free under a promotion."""
    country = (country or "").upper()
    if not country:
        return []
    by_level = {}
    for rate in ShippingRate.objects.filter(country_code__in=[country, ShippingRate.DEFAULT_COUNTRY]):
        kept = by_level.get(rate.service_level)
        if kept is None or (kept.country_code == ShippingRate.DEFAULT_COUNTRY and rate.country_code == country):
            by_level[rate.service_level] = rate
    free = ships_free(subtotal, item_ids)
    options = []
    for rate in sorted(by_level.values(), key=lambda r: (r.price, r.rate_id)):
        if free and rate.service_level == FREE_LEVEL:
            options.append((rate, Decimal("0.00"), f"{rate.title} (Free)"))
        else:
            options.append((rate, rate.price, rate.title))
    return options


def ships_free(subtotal, item_ids):
    for promotion in ShippingPromotion.objects.filter(is_active=True):
        if promotion.min_subtotal is not None and subtotal >= promotion.min_subtotal:
            return True
        if set(promotion.eligible_item_ids or ()) & set(item_ids):
            return True
    return False


def discounts(codes, subtotal):
    """[(code, amount)] of the active codes among `codes`, in order, each taken off what the
    ones before left (a percentage of that, half up to the cent; never more than is left)."""
    found = {d.code: d for d in DiscountCode.objects.filter(code__in=codes, is_active=True)}
    remaining, applied = subtotal, []
    for code in codes:
        discount = found.get(code)
        if discount is None or remaining <= 0:
            continue
        if discount.kind == DiscountCode.Kind.PERCENTAGE:
            amount = (remaining * discount.value / 100).quantize(CENT, ROUND_HALF_UP)
        else:
            amount = min(discount.value, remaining)
        if amount > 0:
            applied.append((discount, amount))
            remaining -= amount
    return applied


def addresses_of(email):
    return [address_fields(address) for address in CustomerAddress.objects.filter(email__iexact=email)]


def address_fields(address):
    fields = {"id": address.public_id}
    fields.update({wire: getattr(address, name) for wire, name in ADDRESS_FIELDS.items() if getattr(address, name)})
    return fields


def remember_address(email, fields):
    """The id of the buyer's address with these fields: an existing one, else a new one."""
    values = {name: (fields.get(wire) or "").strip() for wire, name in ADDRESS_FIELDS.items()}
    if not values["country"]:
        return None
    values["country"] = values["country"].upper()[:2]
    with transaction.atomic():
        existing = CustomerAddress.objects.filter(email__iexact=email, **values).first()
        if existing is not None:
            return existing.public_id
        return CustomerAddress.objects.create(public_id=f"addr_{secrets.token_urlsafe(9)}", email=email,
                                              **values).public_id
