"""Oscar's vouchers for a UCP checkout: the codes put on the agent's basket the way Oscar's basket
page adds them (active, available to the buyer, and giving the basket something once Oscar's
Applicator has run), so the discounts are Oscar's own and go with the basket to the human."""
from decimal import Decimal

from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from oscar.core.loading import get_model

from agents_protocol.contrib.oscar import baskets

Voucher = get_model("voucher", "Voucher")


def exist():
    """Whether the shop has a voucher a buyer may still use."""
    return Voucher.objects.filter(end_datetime__gte=timezone.now()).exists()


def apply(session, codes):
    """Make the session's basket hold the vouchers of `codes` that Oscar accepts for it, and no
    other; [(code as sent, voucher, what it takes off)] in the order of `codes`."""
    basket = baskets.lock_open_basket(session)
    wanted = {code.strip().upper(): code for code in codes}
    for voucher in basket.vouchers.all():
        if voucher.code not in wanted:
            basket.vouchers.remove(voucher)
    for code in wanted:
        voucher = Voucher.objects.filter(code=code).first()
        if voucher is not None and voucher.is_active() and voucher.is_available_to_user(AnonymousUser())[0]:
            basket.vouchers.add(voucher)
    given = discounts_by_code(baskets.apply_offers(basket))
    for voucher in basket.vouchers.all():
        if voucher.code not in given:  # Oscar: "Your basket does not qualify for a voucher discount"
            basket.vouchers.remove(voucher)
    return [(sent, voucher, given[code]) for code, sent in wanted.items()
            for voucher in basket.vouchers.filter(code=code)]


def discounts_by_code(basket):
    """What each voucher Oscar applied takes off the basket as the buyer pays for it: its offers'
    discounts on the lines (nothing for one that only discounts shipping)."""
    given = {application["voucher"].code: Decimal(0)
             for application in basket.offer_applications if application["voucher"] is not None}
    for line in basket.all_lines():
        for applied in line.discounts:
            voucher = applied.offer.get_voucher() if applied.offer is not None else None
            if voucher is not None and voucher.code in given:
                given[voucher.code] += buyer_amount(line, applied)
    return given


def buyer_amount(line, applied):
    """A line discount with tax when the buyer pays with tax: Oscar scales one it reckoned without
    tax by the line's tax ratio to price the line."""
    if applied.incl_tax or not line.is_tax_known or not line.unit_price_excl_tax:
        return applied.amount
    return applied.amount * line.unit_price_incl_tax / line.unit_price_excl_tax
