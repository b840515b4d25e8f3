"""The protocol's default configuration: seed 001's nine capabilities, order.status and the purchase flow.

Written in the `manage.py agents_config export` format. Every rule a parameter has is declared
here (type, required, default, enum, minimum/maximum, min_length/max_length, format) and nowhere
else: handlers keep no limits of their own, and the published documents state these bounds.
Migrations write frozen copies of it (0002, 0009), so changing it later needs a new data
migration for existing installs.

Bounds chosen: a page number stops at 10000 (OFFSET paging past 10000 pages of up to 100
results costs the database more than any agent needs); a quantity is at least 1 for cart.add
and at least 0 for cart.update (0 removes the line), so no negative or zero quantity reaches a
provider (migration 0016), and stops at 1000 for both, or at the shop's own maximum when its
provider declares a lower one (ShopProvider.max_quantity), which is then what is published.
"""
import copy

from agents_protocol.core.conf import app_settings

API = "/.well-known/agents/api"

# Words true of any shop (migration 0028): a shop says more of its own in admin, as the demo's
# loader does (acme/management/commands/load_demo_catalog.py).
SEARCH_DESCRIPTION = "Search the product catalog"
DETAIL_DESCRIPTION = "Get full details for a product and its page URL"

# contact sends the shop an email: one agent gets a few an hour (migration 0024), not the site's 60 a minute.
CONTACT_CALLS_PER_HOUR = 10
# Sessions an address may hold at once (migration 0027): a developer's inspector runs and test agents
# from one machine, which seldom end their sessions; an idle one makes room (http/sessions.py).
MAX_SESSIONS = 20
MAX_PAGE = 10000
MAX_QUANTITY = 1000

PAGE = {"type": "integer", "required": False, "default": 1, "description": "Page number",
        "minimum": 1, "maximum": MAX_PAGE}
LIMIT = {"type": "integer", "required": False, "default": 20, "description": "Results per page",
         "minimum": 1, "maximum": 100}
ITEM_ID = {"type": "string", "required": True, "description": "Product ID (from search, browse or detail)",
           "min_length": 1, "max_length": 200}


def _capability(name, method, path, description, params=None, session=False, handoff=False, calls_per_hour=None):
    capability = {
        "name": name,
        "description": description,
        "endpoint": f"{API}{path}",
        "method": method,
        "params": params or {},
        "requires_session": session,
        "human_handoff": handoff,
        "enabled": True,
    }
    if calls_per_hour is not None:
        capability["calls_per_hour"] = calls_per_hour
    return capability


DEFAULT_CAPABILITIES = [
    _capability("search", "GET", "/search", SEARCH_DESCRIPTION, {
        "q": {"type": "string", "required": True, "description": "Search query", "min_length": 1, "max_length": 200},
        "page": PAGE,
        "limit": LIMIT,
    }),
    _capability("browse", "GET", "/browse", "List products with optional category filter and sorting", {
        "category": {"type": "string", "required": False, "description": "Category slug"},
        "sort": {
            "type": "string", "required": False, "default": "newest",
            "enum": ["price_asc", "price_desc", "newest"], "description": "Sort order",
        },
        "page": PAGE,
        "limit": LIMIT,
    }),
    _capability("detail", "GET", "/detail/:id", DETAIL_DESCRIPTION, {
        "id": {"type": "string", "required": True, "description": "Product ID (path parameter; ?id= also works)",
               "min_length": 1, "max_length": 200},
    }),
    _capability("cart.add", "POST", "/cart/add", "Add a product to the cart; prices always come from the shop", {
        "item_id": ITEM_ID,
        "quantity": {"type": "integer", "required": False, "default": 1, "description": "Quantity to add",
                     "minimum": 1, "maximum": MAX_QUANTITY},
    }, session=True),
    _capability("cart.view", "GET", "/cart/view", "View the cart items and subtotal", session=True),
    _capability("cart.update", "PUT", "/cart/update", "Set the quantity of a cart item (0 removes it)", {
        "item_id": ITEM_ID,
        "quantity": {"type": "integer", "required": True, "description": "New quantity; 0 removes the line",
                     "minimum": 0, "maximum": MAX_QUANTITY},
    }, session=True),
    _capability("cart.remove", "DELETE", "/cart/remove", "Remove an item from the cart", {
        "item_id": ITEM_ID,
    }, session=True),
    _capability(
        "checkout", "POST", "/checkout",
        "Freeze the cart and get a URL for the human to review and pay; do not follow it yourself",
        session=True, handoff=True,
    ),
    _capability(
        "order.status", "GET", "/order/status",
        "See whether your human completed checkout: pending, confirmed, declined, expired or cancelled",
        {"order_id": {"type": "string", "required": False, "max_length": 100,
                      "description": "One order's id (from checkout); omit it to list this session's orders"}},
        session=True,
    ),
    _capability("contact", "POST", "/contact", "Send a message to the shop", {
        "name": {"type": "string", "required": True, "description": "Your name", "min_length": 1, "max_length": 200},
        "email": {"type": "string", "required": True, "description": "Reply address", "format": "email",
                  "min_length": 3, "max_length": 320},
        "message": {"type": "string", "required": True, "description": "Message", "min_length": 1,
                    "max_length": 5000},
    }, calls_per_hour=CONTACT_CALLS_PER_HOUR),
]

DEFAULT_CONFIG = {
    "site": {"name": "My shop", "url": "", "description": "", "contact": "", "docs_url": ""},
    "session": {"create": f"{API}/session", "delete": f"{API}/session", "ttl_seconds": 1800},
    "rate_limit": {"requests_per_minute": 60, "max_sessions": MAX_SESSIONS},
    "audit": {"enabled": True, "endpoint": f"{API}/audit/:session_id"},
    "mcp": {"enabled": True, "endpoint": "/mcp"},
    "ucp": {"enabled": False, "payment_handlers": [], "links": []},  # admin turns UCP on
    "acp": {"enabled": False, "versions": ["2026-04-17"], "intervention_types": []},  # and ACP (checkout/models.py)
    "capabilities": DEFAULT_CAPABILITIES,
    "flows": [
        {
            "name": "purchase",
            "description": "Search for a product, view details, add to cart, and check out",
            "steps": ["search", "detail", "cart.add", "checkout"],
        }
    ],
}


def default_config():
    """A fresh copy of DEFAULT_CONFIG with the project's AGENTS_PROTOCOL["DEFAULT_SITE"] applied."""
    data = copy.deepcopy(DEFAULT_CONFIG)
    data["site"].update(app_settings.DEFAULT_SITE)
    return data
