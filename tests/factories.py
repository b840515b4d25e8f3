"""Small factory functions for tests: each makes a valid row, any field can be overridden."""
import hashlib
import itertools
import secrets
from datetime import timedelta
from decimal import Decimal

from django.utils import timezone

from agents_protocol.models import AgentSession
from catalog.models import Category, Product

_sequence = itertools.count(1)


def make_category(**overrides):
    n = next(_sequence)
    fields = {"name": f"Category {n}", "slug": f"category-{n}"}
    fields.update(overrides)
    return Category.objects.create(**fields)


def make_product(**overrides):
    n = next(_sequence)
    fields = {
        "public_id": f"product-{n}",
        "name": f"Product {n}",
        "slug": f"product-{n}",
        "price": Decimal("10.00"),
        "currency": "USD",
        "stock": 50,
    }
    fields.update(overrides)
    if "category" not in fields:
        fields["category"] = make_category()
    return Product.objects.create(**fields)


def make_agent_session(raw_token=None, **overrides):
    """A live session; its bearer token is on `.raw_token` (only the hash is stored)."""
    raw_token = raw_token or secrets.token_urlsafe(32)
    now = timezone.now()
    fields = {
        "public_id": f"ses_{secrets.token_hex(8)}",
        "token_hash": hashlib.sha256(raw_token.encode()).hexdigest(),
        "client_address": "127.0.0.1",
        "created_at": now,
        "expires_at": now + timedelta(seconds=1800),
    }
    fields.update(overrides)
    session = AgentSession.objects.create(**fields)
    session.raw_token = raw_token
    return session
