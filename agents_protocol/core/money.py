"""Money as agents read it: written with the minor units of its currency, whatever the provider returned.

A provider may return Decimal("18"), 9.999 or 12.5 for a price; the app writes every amount
with the decimals ISO 4217 gives its currency (18.00 and 10.00 in USD, 1800 in JPY, 1.250 in
BHD), rounding half up, before the codec writes it. The amounts are the values of MONEY_KEYS
in the built-in capabilities' answers that have a currency: the `currency` key of the same
object or of the nearest object around it (a search answer's `total` is a count: no currency
around it). A code ISO 4217 does not know, or gives no minor unit (XAU), gets two decimals.
An amount that is not finite (NaN, Infinity) is the provider's error: NotMoney, a 500 whose
log names the amount and its item.
"""
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from functools import lru_cache

from iso4217 import Currency

MONEY_KEYS = frozenset({"price", "subtotal", "total", "line_total", "unit_price", "amount", "tax", "shipping",
                        "discount"})
DEFAULT_MINOR_UNITS = 2
SCALARS = frozenset({str, bool, int, float, Decimal})  # the usual types of an answer's values, checked first
# Wide enough for any amount a DecimalField holds (PostgreSQL declares at most 1000 digits, MySQL 65,
# Oracle 38; SQLite keeps a float, at most 309) with any currency's decimals, and independent of the
# thread's decimal context, which the default context's 28 digits would refuse to quantize (1e30).
MONEY_CONTEXT = Context(prec=1010)


class NotMoney(ValueError):
    """An amount the provider returned that cannot be written as money."""


@lru_cache(maxsize=256)
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
    quantum = QUANTA.get(currency) or _quantum(currency)
    decimal = amount if type(amount) is Decimal else _decimal(amount)
    return decimal.quantize(quantum, ROUND_HALF_UP, MONEY_CONTEXT)  # positional: a third cheaper


def in_minor_units(amount, currency):
    """`amount` as a whole number of the currency's minor units (cents), half up: 12.5 USD is 1250."""
    return int(as_money(amount, currency).scaleb(minor_units(currency)))


def money_written(data, currency=None):
    """`data` (dicts and lists of JSON values) with every amount under MONEY_KEYS written as money.

    Rewrites the amounts in place and returns `data`: the answer is built for this call (or
    kept by the shop only to be answered again, which this leaves as it would write it).
    """
    if isinstance(data, dict):
        named = data.get("currency")
        currency = named if isinstance(named, str) else currency
        for key, value in data.items():
            kind = type(value)
            if kind in SCALARS:  # most values: an amount only under a money key
                if key in MONEY_KEYS and currency is not None and kind is not bool and kind is not str:
                    data[key] = _money_of(data, key, value, currency)
            elif isinstance(value, (dict, list)):
                money_written(value, currency)
            elif key in MONEY_KEYS and currency is not None and _is_number(value):
                data[key] = _money_of(data, key, value, currency)
    elif isinstance(data, list):
        for item in data:
            if isinstance(item, (dict, list)):
                money_written(item, currency)
    return data


def amount_written(data, key, currency=None):
    """`data[key]` as money_written(data, currency) writes it, `data` left as it is: only the
    amounts a caller reads, instead of every one of a whole answer."""
    named = data.get("currency")
    currency = named if isinstance(named, str) else currency
    value = data.get(key)
    if key in MONEY_KEYS and currency is not None and (type(value) is Decimal or _is_number(value)):
        return _money_of(data, key, value, currency)
    return value


def _decimal(amount):
    if isinstance(amount, Decimal):
        return amount
    return Decimal(repr(amount)) if isinstance(amount, float) else Decimal(amount)


QUANTA = {}  # currency → the Decimal its amounts are quantized to (a dict: read per amount, at a third of lru_cache's cost)
QUANTA_KEPT = 256


def _quantum(currency):
    quantum = Decimal(1).scaleb(-minor_units(currency))
    if len(QUANTA) >= QUANTA_KEPT:
        QUANTA.clear()
    QUANTA[currency] = quantum
    return quantum


def _money_of(data, key, amount, currency):
    """`amount` as money, or NotMoney naming it and its item (a NaN quantizes to NaN, Infinity raises)."""
    try:
        money = as_money(amount, currency)
        if not money.is_nan():
            return money
    except InvalidOperation:
        pass
    item = data.get("id", data.get("item_id"))
    where = "the answer" if item is None else f"item {item!r}"
    raise NotMoney(f"The provider gave {where} a {key} of {amount!r}, which is no amount of money "
                   f"(not finite, or wider than a DecimalField holds).")


def _is_number(value):
    return isinstance(value, (Decimal, int, float)) and not isinstance(value, bool)
