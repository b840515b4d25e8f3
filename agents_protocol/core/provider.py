"""The interface a shop implements so agents_protocol can reach its catalog and cart.

The app never imports the shop; it loads the class named in AGENTS_PROTOCOL["PROVIDER"]
and calls these methods. Each returns JSON-ready data (dicts, lists, str, int, bool,
Decimal for money) and raises `agents_protocol.core.errors.CapabilityError` to refuse.
`context` tells who is asking and how to build absolute URLs.
"""
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from django.utils.module_loading import import_string

from agents_protocol.core.conf import get_setting


@dataclass(frozen=True)
class CallContext:
    """Who is calling (`session` is an AgentSession, or None) and the origin they called."""

    session: Any
    origin: str
    append_audit_event: Callable[[], Any] | None = None

    def absolute_url(self, path):
        return f"{self.origin}{path}"

    def record_change(self):
        """Call inside the transaction that makes this call's change, once the change is made.

        The agent API then appends the call's audit event in that transaction, so the change
        and its record commit together or not at all (and SQLite's one write lock is taken once
        instead of twice). Optional: without it the event is appended after the handler
        returns. Outside the agent API's routes (captured examples, PactSpec, A2A) it does
        nothing and the event, if any, follows the call as before.
        """
        if self.append_audit_event is not None:
            self.append_audit_event()


@dataclass(frozen=True)
class ItemPage:
    items: list
    total: int


@dataclass(frozen=True)
class Handoff:
    """What a checkout returns: where the human goes (absolute URL) and until when."""

    checkout_url: str
    expires_at: Any
    order_id: str


class ShopProvider(Protocol):
    def search(self, context: CallContext, query: str, page: int, limit: int) -> ItemPage: ...

    def browse(self, context: CallContext, category: str | None, sort: str, page: int, limit: int) -> ItemPage: ...

    def item_detail(self, context: CallContext, item_id: str) -> dict | None: ...

    def cart_add(self, context: CallContext, item_id: str, quantity: int) -> dict: ...

    def cart_view(self, context: CallContext) -> dict: ...

    def cart_update(self, context: CallContext, item_id: str, quantity: int) -> dict: ...

    def cart_remove(self, context: CallContext, item_id: str) -> dict: ...

    def checkout(self, context: CallContext) -> Handoff: ...

    def order_status(self, context: CallContext, order_id: str | None) -> dict: ...

    def contact(self, context: CallContext, name: str, email: str, message: str) -> dict: ...


class ProviderNotConfigured(Exception):
    pass


@lru_cache(maxsize=1)
def get_provider() -> ShopProvider:
    path = get_setting("PROVIDER")
    if not path:
        raise ProviderNotConfigured('Set AGENTS_PROTOCOL["PROVIDER"] to the dotted path of your provider class.')
    return import_string(path)()
