"""Oscar's offers and vouchers for a UCP checkout. The codes go on the agent's basket the way
Oscar's basket page adds them (active, available to the buyer, and giving the basket something
once Oscar's Applicator has run), so the discounts are Oscar's own and go with the basket to the
human; the site's offers Oscar applies by itself are discounts without a code."""
from decimal import Decimal

from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from oscar.core.loading import get_model

from agents_protocol.contrib.oscar import baskets

ConditionalOffer = get_model("offer", "ConditionalOffer")
Voucher = get_model("voucher", "Voucher")


def exist():
    """Whether the shop has a voucher a buyer may still use, or a site offer running."""
    return (Voucher.objects.filter(end_datetime__gte=timezone.now()).exists()
            or ConditionalOffer.active.filter(offer_type=ConditionalOffer.SITE).exists())


def apply(session, codes):
    """Make the session's basket hold the vouchers of `codes` that Oscar accepts for it, and no
    other; [(code as sent, or None for a site offer, title, what it takes off)]: the vouchers in
    the order of `codes`, then the site offers that gave the basket something."""
    basket = baskets.lock_open_basket(session)
    wanted = {code.strip().upper(): code for code in codes}
    for voucher in basket.vouchers.all():
        if voucher.code not in wanted:
            basket.vouchers.remove(voucher)
    for code in wanted:
        voucher = Voucher.objects.filter(code=code).first()
        if voucher is not None and voucher.is_active() and voucher.is_available_to_user(AnonymousUser())[0]:
            basket.vouchers.add(voucher)
    by_voucher, by_site_offer = given(baskets.apply_offers(basket))
    for voucher in basket.vouchers.all():
        if voucher.code not in by_voucher:  # Oscar: "Your basket does not qualify for a voucher discount"
            basket.vouchers.remove(voucher)
    vouchers = {voucher.code: voucher for voucher in basket.vouchers.all()}
    return ([(sent, vouchers[code].name, by_voucher[code]) for code, sent in wanted.items() if code in vouchers]
            + [(None, offer.name, amount) for offer, amount in by_site_offer.values() if amount > 0])


def given(basket):
    """What Oscar's offers took off the basket's lines as the buyer pays for them: {voucher code:
    amount} (nothing for a voucher that only discounts shipping), {offer id: (site offer, amount)}."""
    by_voucher, by_site_offer = {}, {}
    for application in basket.offer_applications:
        if application["voucher"] is not None:
            by_voucher[application["voucher"].code] = Decimal(0)
        else:
            by_site_offer[application["offer"].id] = (application["offer"], Decimal(0))
    for line in basket.all_lines():
        for applied in line.discounts:
            if applied.offer is None:
                continue
            voucher = applied.offer.get_voucher()
            if voucher is not None and voucher.code in by_voucher:
                by_voucher[voucher.code] += buyer_amount(line, applied)
            elif voucher is None and applied.offer.id in by_site_offer:
                offer, amount = by_site_offer[applied.offer.id]
                by_site_offer[applied.offer.id] = (offer, amount + buyer_amount(line, applied))
    return by_voucher, by_site_offer


def buyer_amount(line, applied):
    """A line discount with tax when the buyer pays with tax: Oscar scales one it reckoned without
    tax by the line's tax ratio to price the line."""
    if applied.incl_tax or not line.is_tax_known or not line.unit_price_excl_tax:
        return applied.amount
    return applied.amount * line.unit_price_incl_tax / line.unit_price_excl_tax
