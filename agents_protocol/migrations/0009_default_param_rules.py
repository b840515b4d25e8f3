"""Give the default capabilities' parameters the rules their handlers used to hard-code.

Until now search, browse, detail, the cart capabilities and contact checked their own limits
(q 1 to 200 characters, page from 1, limit 1 to 100, ids 1 to 200, contact name 1 to 200,
email 3 to 320 and an email address, message 1 to 5000); those limits are now the parameters'
declared rules, checked before any handler runs and published in every document. This
writes them into existing installs, and fresh ones after 0002.

The rules are written out here, not read from agents_protocol.core.defaults, so this
migration never changes. A parameter gets them only where it is still the default one: its
capability and name exist, its type is the expected one and its own default fits the new
bounds. A description that is still the default text loses the bounds it spelled out
("Search query, 1 to 200 characters" becomes "Search query"): agents.json now states the
bounds from the rules, and they would be said twice.
"""
from django.db import migrations
from django.db.models import F

TEXT_1_200 = {"min_length": 1, "max_length": 200}
PAGE = {"minimum": 1, "maximum": 10000}
LIMIT = {"minimum": 1, "maximum": 100}
QUANTITY = {"maximum": 1000}

# (capability, parameter, type): rules
RULES = {
    ("search", "q", "string"): TEXT_1_200,
    ("search", "page", "integer"): PAGE,
    ("search", "limit", "integer"): LIMIT,
    ("browse", "page", "integer"): PAGE,
    ("browse", "limit", "integer"): LIMIT,
    ("detail", "id", "string"): TEXT_1_200,
    ("cart.add", "item_id", "string"): TEXT_1_200,
    ("cart.add", "quantity", "integer"): QUANTITY,
    ("cart.update", "item_id", "string"): TEXT_1_200,
    ("cart.update", "quantity", "integer"): QUANTITY,
    ("cart.remove", "item_id", "string"): TEXT_1_200,
    ("order.status", "order_id", "string"): {"max_length": 100},
    ("contact", "name", "string"): TEXT_1_200,
    ("contact", "email", "string"): {"min_length": 3, "max_length": 320, "format": "email"},
    ("contact", "message", "string"): {"min_length": 1, "max_length": 5000},
}
# (capability, parameter): (the default description before, after)
DESCRIPTIONS = {
    ("search", "q"): ("Search query, 1 to 200 characters", "Search query"),
    ("search", "page"): ("Page number, from 1", "Page number"),
    ("search", "limit"): ("Results per page, 1 to 100", "Results per page"),
    ("browse", "page"): ("Page number, from 1", "Page number"),
    ("browse", "limit"): ("Results per page, 1 to 100", "Results per page"),
    ("contact", "name"): ("Your name, 1 to 200 characters", "Your name"),
    ("contact", "message"): ("Message, 1 to 5000 characters", "Message"),
}
RULE_FIELDS = ("minimum", "maximum", "min_length", "max_length", "format")


def add_rules(apps, schema_editor):
    CapabilityParam = apps.get_model("agents_protocol", "CapabilityParam")
    changed = False
    for param in CapabilityParam.objects.select_related("capability"):
        key = (param.capability.name, param.name)
        rules = RULES.get((*key, param.type))
        if rules and _unset(param) and _default_fits(param.default, rules):
            for field, value in rules.items():
                setattr(param, field, value)
            changed = True
        before, after = DESCRIPTIONS.get(key, (None, None))
        if before is not None and param.description == before:
            param.description = after
            changed = True
        param.save()
    if changed:
        # Historical models send no signal a worker listens to: move the revision by hand.
        apps.get_model("agents_protocol", "ConfigRevision").objects.filter(pk=1).update(number=F("number") + 1)


def remove_rules(apps, schema_editor):
    """Back to the descriptions that spelled out the bounds (0008's reversal drops the rules)."""
    CapabilityParam = apps.get_model("agents_protocol", "CapabilityParam")
    for (capability, name), (before, after) in DESCRIPTIONS.items():
        CapabilityParam.objects.filter(capability__name=capability, name=name, description=after).update(
            description=before)
    apps.get_model("agents_protocol", "ConfigRevision").objects.filter(pk=1).update(number=F("number") + 1)


def _unset(param):
    return all(getattr(param, field) in (None, "") for field in RULE_FIELDS)


def _default_fits(default, rules):
    """Whether a parameter's own default passes the rules (else the parameter is left as it is)."""
    if default is None:
        return True
    if isinstance(default, str):
        length = len(default.strip()) if "min_length" in rules else len(default)
        in_range = rules.get("min_length", 0) <= length <= rules.get("max_length", length)
        return in_range and "format" not in rules
    if isinstance(default, bool) or not isinstance(default, (int, float)):
        return False
    return rules.get("minimum", default) <= default <= rules.get("maximum", default)


class Migration(migrations.Migration):
    dependencies = [("agents_protocol", "0008_capability_param_rules")]

    operations = [migrations.RunPython(add_rules, remove_rules)]
