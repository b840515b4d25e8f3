"""Install the protocol's default configuration on a fresh database.

The rows are written out here, not read from agents_protocol.core.defaults, so this migration
never changes when the defaults do: it writes what it wrote when it still read them (including
order.status and audit on, which 0004 and 0005 bring to installs made before them). Later
changes to the defaults reach every install, fresh or not, through later data migrations
(0008/0009 add and fill the parameter rules). The site's name, description and contact come
from the project's AGENTS_PROTOCOL["DEFAULT_SITE"], as they always did.
"""
from django.conf import settings
from django.db import migrations

API = "/.well-known/agents/api"
DEFAULT_SITE = {"name": "My shop", "description": "", "contact": ""}
SITE = {"name": "My shop", "url": "", "description": "", "contact": "", "docs_url": ""}
SESSION = {"create_endpoint": f"{API}/session", "delete_endpoint": f"{API}/session", "ttl_seconds": 1800}
RATE_LIMIT = {"requests_per_minute": 60, "max_sessions": 5}
AUDIT = {"enabled": True, "endpoint": f"{API}/audit/:session_id"}

ITEM_ID = ("item_id", "string", True, None, None, "Product ID (from search, browse or detail)")
PAGE = ("page", "integer", False, 1, None, "Page number, from 1")
LIMIT = ("limit", "integer", False, 20, None, "Results per page, 1 to 100")

# (name, method, path, description, requires_session, human_handoff,
#  params as (name, type, required, default, enum, description))
CAPABILITIES = [
    ("search", "GET", "/search", "Search the product catalog; name matches rank first", False, False, [
        ("q", "string", True, None, None, "Search query, 1 to 200 characters"),
        PAGE,
        LIMIT,
    ]),
    ("browse", "GET", "/browse", "List products with optional category filter and sorting", False, False, [
        ("category", "string", False, None, None, "Category slug"),
        ("sort", "string", False, "newest", ["price_asc", "price_desc", "newest"], "Sort order"),
        PAGE,
        LIMIT,
    ]),
    ("detail", "GET", "/detail/:id", "Get full details for a product, with stock and its page URL", False, False, [
        ("id", "string", True, None, None, "Product ID (path parameter; ?id= also works)"),
    ]),
    ("cart.add", "POST", "/cart/add", "Add a product to the cart; prices always come from the shop", True, False, [
        ITEM_ID,
        ("quantity", "integer", False, 1, None, "Quantity to add"),
    ]),
    ("cart.view", "GET", "/cart/view", "View the cart items and subtotal", True, False, []),
    ("cart.update", "PUT", "/cart/update", "Set the quantity of a cart item (0 removes it)", True, False, [
        ITEM_ID,
        ("quantity", "integer", True, None, None, "New quantity; 0 removes the line"),
    ]),
    ("cart.remove", "DELETE", "/cart/remove", "Remove an item from the cart", True, False, [ITEM_ID]),
    ("checkout", "POST", "/checkout",
     "Freeze the cart and get a URL for the human to review and pay; do not follow it yourself", True, True, []),
    ("order.status", "GET", "/order/status",
     "See whether your human completed checkout: pending, confirmed, declined, expired or cancelled", True, False, [
         ("order_id", "string", False, None, None,
          "One order's id (from checkout); omit it to list this session's orders"),
     ]),
    ("contact", "POST", "/contact", "Send a message to the shop", False, False, [
        ("name", "string", True, None, None, "Your name, 1 to 200 characters"),
        ("email", "string", True, None, None, "Reply address"),
        ("message", "string", True, None, None, "Message, 1 to 5000 characters"),
    ]),
]
FLOWS = [
    ("purchase", "Search for a product, view details, add to cart, and check out",
     ["search", "detail", "cart.add", "checkout"]),
]


def install_defaults(apps, schema_editor):
    def model(name):
        return apps.get_model("agents_protocol", name)

    for name in ("FlowStep", "Flow", "CapabilityParam", "Capability"):
        model(name).objects.all().delete()

    site = {**SITE, **getattr(settings, "AGENTS_PROTOCOL", {}).get("DEFAULT_SITE", DEFAULT_SITE)}
    _singleton(model("SiteProfile"), **{key: site.get(key, "") for key in SITE})
    _singleton(model("SessionConfig"), **SESSION)
    _singleton(model("RateLimitConfig"), **RATE_LIMIT)
    _singleton(model("AuditConfig"), **AUDIT)

    capabilities = {}
    for position, (name, method, path, description, session, handoff, params) in enumerate(CAPABILITIES):
        capability = model("Capability")(
            name=name, description=description, endpoint=f"{API}{path}", method=method,
            requires_session=session, human_handoff=handoff, enabled=True, position=position,
        )
        capability.save()
        capabilities[name] = capability
        for param_position, (param, kind, required, default, enum, text) in enumerate(params):
            model("CapabilityParam")(
                capability=capability, name=param, type=kind, description=text, required=required,
                default=default, enum=enum, items=None, position=param_position,
            ).save()

    for position, (name, description, steps) in enumerate(FLOWS):
        flow = model("Flow")(name=name, description=description, position=position)
        flow.save()
        for step_position, step in enumerate(steps):
            model("FlowStep")(flow=flow, capability=capabilities[step], position=step_position).save()

    model("ConfigRevision").objects.update_or_create(pk=1, defaults={"number": 1})


def _singleton(model, **values):
    obj = model.objects.filter(pk=1).first() or model(pk=1)
    for field, value in values.items():
        setattr(obj, field, value)
    obj.save()


class Migration(migrations.Migration):
    dependencies = [("agents_protocol", "0001_initial")]

    operations = [migrations.RunPython(install_defaults, migrations.RunPython.noop)]
