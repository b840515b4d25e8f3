"""Money as agents read it: written with the minor units of its currency, whatever the provider returned.

A provider may return Decimal("18"), 9.999 or 12.5 for a price; the app writes every amount
with the decimals ISO 4217 gives its currency (18.00 and 10.00 in USD, 1800 in JPY, 1.250 in
BHD), rounding half up, before the codec writes it. The amounts are the values of MONEY_KEYS
in the built-in capabilities' answers, in the currency named by the `currency` key of the
same object or of the nearest object around it; without one, or for a code ISO 4217 does not
know or gives no minor unit (XAU), two decimals.
"""
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache

from iso4217 import Currency

MONEY_KEYS = frozenset({"price", "subtotal", "total", "line_total", "unit_price", "amount", "tax", "shipping",
                        "discount"})
DEFAULT_MINOR_UNITS = 2


@lru_cache(maxsize=None)
def minor_units(currency):
    """How many decimals ISO 4217 gives `currency` (USD 2, JPY 0, BHD 3), or 2 when it gives none."""
    try:
        exponent = Currency(str(currency).upper()).exponent
    except ValueError:
        return DEFAULT_MINOR_UNITS
    return DEFAULT_MINOR_UNITS if exponent is None else exponent


def as_money(amount, currency):
    """`amount` (Decimal, int or float) as a Decimal with the currency's decimals, half up.

    A float is read through its shortest repr (9.999 is Decimal("9.999"), not the binary value).
    """
    value = Decimal(repr(amount)) if isinstance(amount, float) else Decimal(amount)
    return value.quantize(Decimal(1).scaleb(-minor_units(currency)), rounding=ROUND_HALF_UP)


def money_written(data, currency=None):
    """`data` (dicts and lists of JSON values) with every amount under MONEY_KEYS written as money."""
    if isinstance(data, dict):
        currency = data.get("currency") if isinstance(data.get("currency"), str) else currency
        return {key: as_money(value, currency) if key in MONEY_KEYS and _is_amount(value)
                else money_written(value, currency) for key, value in data.items()}
    if isinstance(data, list):
        return [money_written(item, currency) for item in data]
    return data


def _is_amount(value):
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool) and _finite(value)


def _finite(value):
    return Decimal(repr(value) if isinstance(value, float) else value).is_finite()
