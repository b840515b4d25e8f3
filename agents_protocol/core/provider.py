"""The base class a shop subclasses so agents_protocol can reach its catalog and cart.

The app never imports the shop; it loads the ShopProvider subclass named in
AGENTS_PROTOCOL["PROVIDER"] and calls the methods it overrides. Each returns JSON-ready data (dicts, lists, str, int, bool,
Decimal for money; datetimes, dates, UUIDs, lazy text and sets are written too: core/codec.py)
and raises `agents_protocol.core.errors.CapabilityError` to refuse.
`context` tells who is asking and how to build absolute URLs.
"""
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.signals import setting_changed
from django.utils import timezone
from django.utils.module_loading import import_string

from agents_protocol.core import cart_notices
from agents_protocol.core.conf import app_settings
from agents_protocol.core.errors import CapabilityError, not_implemented
from agents_protocol.core.models import AgentSession


@dataclass(frozen=True)
class CallContext:
    """Who is calling (`session` is an AgentSession, or None), the origin they called, and for
    order.status of a handed-off checkout the handoff it is about."""

    session: Any
    origin: str
    append_audit_event: Callable[[], Any] | None = None
    # order.status of a checkout handed off by reference: the session's CheckoutHandoff whose order
    # the app asks about (core/handoffs.py). None when the order_id is the agent's own words.
    resolved_handoff: Any = None
    # What record_change() did in this call: {"recorded": True, "cart_shown_before": snapshot,
    # "cart_shown": (the cart it was handed, its snapshot)}.
    _changes: dict = field(default_factory=dict, repr=False, compare=False)

    def absolute_url(self, path):
        return f"{self.origin}{path}"

    def record_change(self, cart=None):
        """Call inside the transaction that makes this call's change, once the change is made.

        The agent API then appends the call's audit event in that transaction, so the change
        and its record commit together or not at all (and SQLite's one write lock is taken once
        instead of twice). The app calls it itself at the end of the transaction it opens around
        a provider method that changes something (ShopProvider.atomic_changes); a provider that
        opens its own calls it there, with `cart` (the cart after the change, as cart_view
        answers it) when it has read it: the app then keeps what the agent is shown of its cart
        (core/cart_notices.py) in that transaction too, instead of in one of its own. Only the
        first call counts. Outside the agent API's routes (captured examples, PactSpec, A2A) the
        audit event, if any, follows the call.
        """
        if self._changes:
            return
        self._changes["recorded"] = True
        if cart is not None and self.session is not None:
            self._changes["cart_shown_before"] = self.session.shown_cart
            shown = cart_notices.snapshot(cart)
            self._changes["cart_shown"] = (cart, shown)
            cart_notices.remember(self.session, shown)
        if self.append_audit_event is not None:
            self.append_audit_event()

    def cart_shown_before(self):
        """The snapshot of the cart the agent was shown before this call's change."""
        return self._changes.get("cart_shown_before", self.session.shown_cart)

    def cart_snapshot(self, cart):
        """cart_notices.snapshot(cart), made once when `cart` is the one record_change() was handed
        (the answer reuses the cart read in the change's transaction)."""
        kept = self._changes.get("cart_shown")
        if kept is not None and kept[0] is cart:
            return kept[1]
        return cart_notices.snapshot(cart)


@dataclass(frozen=True)
class ItemPage:
    items: list
    total: int


CATALOG_PAGE = 100  # browse's largest page (core/defaults.py), read by catalog_items

DEFAULT_HANDOFF_MESSAGE = "Give this link to your human to review the order and pay. Do not open it yourself."


@dataclass(frozen=True)
class Handoff:
    """What a checkout returns: where the human goes (absolute URL), until when, and either the
    shop's `order_id` or, when the shop creates the order only once the human pays, its own
    `reference` of the handoff (core/handoffs.py: the agent gets an order_id of the app, and the
    shop later calls resolve_handoff(reference, order_number))."""

    checkout_url: str
    expires_at: Any
    order_id: str | None = None
    reference: str | None = None
    # Sentences of the shop's own for the agent; a str is one. The app adds before them what changed in the
    # cart since the agent last saw it (core/cart_notices.py), for every provider.
    notices: tuple[str, ...] = ()
    message: str = DEFAULT_HANDOFF_MESSAGE  # what the agent is told to do with the link

    def __post_init__(self):
        if (self.order_id is None) == (self.reference is None):
            raise ValueError("A Handoff carries either the shop's order_id or its handoff reference.")
        if not is_absolute_http_url(self.checkout_url):
            raise ValueError(f"A Handoff's checkout_url is an absolute http or https URL (context.absolute_url(path) "
                             f"makes one), not {self.checkout_url!r}.")
        # Naive datetimes are what a shop with USE_TZ = False has; with it on, a naive one is a mistake.
        if not isinstance(self.expires_at, datetime) or (settings.USE_TZ and timezone.is_naive(self.expires_at)):
            raise ValueError(f"A Handoff's expires_at is an aware datetime, e.g. timezone.now() + a timedelta, "
                             f"not {self.expires_at!r}.")
        if isinstance(self.notices, str):
            object.__setattr__(self, "notices", (self.notices,))  # one sentence, not its characters


@dataclass(frozen=True)
class ShippingOption:
    """One way the shop ships to an address: `amount` in the checkout's currency (a Decimal)."""

    id: str
    title: str
    amount: Any


@dataclass(frozen=True)
class Discount:
    """A discount code the shop accepted, or None for one it gives by itself (a promotion), and
    what it takes off (a Decimal, in the checkout's currency)."""

    code: str | None
    title: str
    amount: Any


@dataclass(frozen=True)
class PaymentInstrument:
    """What a platform pays with: the handler it names and its credential (a token or a card)
    exactly as sent. Never stored or logged by the app: the provider reads what it needs."""

    id: str
    handler_id: str
    credential: dict
    authentication: dict | None = None  # the buyer's authentication result (3-D Secure), when asked for


@dataclass(frozen=True)
class Payment:
    """The outcome of ShopProvider.pay: APPROVED (with the shop's reference), DECLINED (with a
    sentence for the buyer), ESCALATE (the human pays on the checkout page) or AUTHENTICATE (the
    buyer must authenticate first: `challenge` says how, e.g. 3-D Secure's metadata; pay() is
    called again with the instrument's `authentication`)."""

    APPROVED, DECLINED, ESCALATE, AUTHENTICATE = "approved", "declined", "escalate", "authenticate"

    outcome: str
    reference: str = ""
    message: str = ""
    challenge: dict | None = None


def is_absolute_http_url(url):
    if not isinstance(url, str):
        return False
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


class ShopProvider:
    """The base class of a shop's provider: subclass it and override what the shop supports.

    Like django-allauth's adapters: AGENTS_PROTOCOL["PROVIDER"] names the subclass, and the app
    calls one method per capability, `context` first and every other argument by keyword. A
    method left as it is here answers 501 `not_implemented`, and system check W002 names an
    enabled capability whose method the provider does not override; E003 checks only the
    methods it overrides. So a method a later version adds breaks no existing provider.
    """

    # The app opens transaction.atomic() around every method that changes something and appends
    # the call's audit event in it. False: the provider opens its own transactions and calls
    # context.record_change() in the one that makes the change.
    atomic_changes = True

    # The most of one item the shop's cart holds on a line, or None for no limit of its own. The
    # quantity of cart.add and cart.update is then published and enforced with this maximum when
    # it is below the configured one (core/config.py), so no document promises a quantity the
    # shop refuses whatever the cart holds.
    max_quantity: int | None = None

    def search(self, context: CallContext, *, query: str, page: int, limit: int) -> ItemPage:
        raise not_implemented("search")

    def browse(self, context: CallContext, *, category: str | None, sort: str, page: int, limit: int) -> ItemPage:
        raise not_implemented("browse")

    def item_detail(self, context: CallContext, *, item_id: str) -> dict | None:
        raise not_implemented("detail")

    def cart_add(self, context: CallContext, *, item_id: str, quantity: int) -> dict:
        raise not_implemented("cart.add")

    def cart_view(self, context: CallContext) -> dict:
        raise not_implemented("cart.view")

    def cart_update(self, context: CallContext, *, item_id: str, quantity: int) -> dict:
        raise not_implemented("cart.update")

    def cart_remove(self, context: CallContext, *, item_id: str) -> dict:
        raise not_implemented("cart.remove")

    def checkout(self, context: CallContext) -> Handoff:
        raise not_implemented("checkout")

    def order_status(self, context: CallContext, *, order_id: str | None) -> dict:
        raise not_implemented("order.status")

    def contact(self, context: CallContext, *, name: str, email: str, message: str) -> dict:
        raise not_implemented("contact")

    def catalog_items(self, context: CallContext) -> Iterable[dict]:
        """Every item for sale as the detail capability answers it (a product with variants lists
        them under `variants`), for the product feed (documents/acp_feed.py). Here browse's pages,
        newest first, and the detail of each: a shop with many products overrides it with a
        generator that reads its catalog in chunks, so the feed streams in bounded memory."""
        page = 1
        while True:
            listed = self.browse(context, category=None, sort="newest", page=page, limit=CATALOG_PAGE)
            for summary in listed.items:
                item = self.item_detail(context, item_id=str(summary["id"]))
                if item is not None:
                    yield item
            if not listed.items or page * CATALOG_PAGE >= listed.total:
                return
            page += 1

    # Checkout sessions of the commerce protocols (agents_protocol/checkout/): optional. A shop
    # without shipping options declares no fulfillment, without discounts no discount codes, and
    # without pay() every completion hands the buyer to the checkout page (requires escalation).

    @property
    def offers_shipping(self) -> bool:
        """Whether checkouts ship (the profile then declares fulfillment): here, whether the
        provider has shipping_options. A provider whose shop may have none overrides it."""
        return implements(type(self), "shipping_options")

    @property
    def offers_discounts(self) -> bool:
        """Whether checkouts take discount codes: here, whether the provider has discounts."""
        return implements(type(self), "discounts")

    def shipping_options(self, context: CallContext, *, destination: dict, lines: list, subtotal,
                         currency: str) -> list[ShippingOption]:
        """How the shop ships `lines` ({"item_id", "quantity", …}) to `destination` (schema.org
        PostalAddress fields: street_address, address_locality, address_region, postal_code,
        address_country)."""
        return []

    def discounts(self, context: CallContext, *, codes: list, subtotal, currency: str) -> list[Discount]:
        """The codes of `codes` the shop accepts, in order, with what each takes off (others are
        left out), and the discounts it gives without a code."""
        return []

    def buyer_addresses(self, context: CallContext, *, email: str) -> list[dict]:
        """The addresses the shop keeps for the buyer with this email ({"id", …PostalAddress fields})."""
        return []

    def remember_address(self, context: CallContext, *, email: str, address: dict) -> str | None:
        """Keep `address` for the buyer with this email; the id it is kept under (an existing
        one for the same address), or None when the shop keeps no addresses."""
        return None

    def pay(self, context: CallContext, *, order_id: str, instrument: PaymentInstrument, amount,
            currency: str, buyer: dict | None) -> Payment:
        """Charge `amount` for the order handed off as `order_id` (checkout's) with `instrument`.
        Here: the human pays on the shop's own checkout page."""
        return Payment(Payment.ESCALATE)

    def paid_sessions(self, session_pks) -> set:
        """Those of `session_pks` (AgentSessions that checked out) with an order the human paid:
        the last step of the agent activity page's funnel. Here order_status of each session,
        an order whose status is "confirmed" being paid; a shop overrides it with one query."""
        paid = set()
        for session in AgentSession.objects.filter(pk__in=session_pks):
            try:
                orders = self.order_status(CallContext(session, origin=""), order_id=None).get("orders", [])
            except CapabilityError:
                continue
            if any(order.get("status") == "confirmed" for order in orders):
                paid.add(session.pk)
        return paid


def base_methods():
    """The base class's methods a provider may override, by name."""
    return {name: value for name, value in vars(ShopProvider).items()
            if callable(value) and not name.startswith("_")}


def implements(provider_class, method_name):
    """Whether `provider_class` has its own `method_name` (a class that is no ShopProvider counts
    its methods as its own)."""
    method = getattr(provider_class, method_name, None)
    return callable(method) and method is not getattr(ShopProvider, method_name, None)


class ProviderNotConfigured(Exception):
    pass


@lru_cache(maxsize=1)
def get_provider() -> ShopProvider:
    path = app_settings.PROVIDER
    if not path:
        raise ProviderNotConfigured('Set AGENTS_PROTOCOL["PROVIDER"] to the dotted path of your provider class.')
    return import_string(path)()


def _forget_provider(setting, **kwargs):
    if setting == "AGENTS_PROTOCOL":  # override_settings in a shop's tests swaps it
        get_provider.cache_clear()


setting_changed.connect(_forget_provider)
