"""Configuration as code: the whole capability config as one JSON document, out and in.

`import_config` replaces everything atomically after the same model validation admin
runs, then checks the agents.json it would publish against the canonical schema; any
error rolls the whole import back.
"""
from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import transaction

from agents_protocol.checkout.models import CheckoutLink, CommerceConfig, PaymentHandler
from agents_protocol.core.config import load_config, one_revision_bump
from agents_protocol.core.models import path_param_problem
from agents_protocol.documents.agents_json import build_agents_json
from agents_protocol.documents.validation import agents_json_errors

VALIDATION_ORIGIN = "https://example.invalid"

_PARAM = {
    "type": "object",
    "required": ["type"],
    "additionalProperties": False,
    "properties": {
        "type": {"type": "string"},
        "required": {"type": "boolean"},
        "description": {"type": "string"},
        "default": {},
        "enum": {"type": "array"},
        "items": {"type": "object"},
        "minimum": {"type": "number"},
        "maximum": {"type": "number"},
        "min_length": {"type": "integer", "minimum": 0},
        "max_length": {"type": "integer", "minimum": 0},
        "format": {"type": "string"},
    },
}
_CAPABILITY = {
    "type": "object",
    "required": ["name", "endpoint", "method"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string"},
        "description": {"type": "string"},
        "endpoint": {"type": "string"},
        "method": {"type": "string"},
        "params": {"type": "object", "additionalProperties": _PARAM},
        "requires_session": {"type": "boolean"},
        "human_handoff": {"type": "boolean"},
        "enabled": {"type": "boolean"},
        "calls_per_hour": {"type": "integer", "minimum": 1},
    },
}
_FLOW = {
    "type": "object",
    "required": ["name", "steps"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string"},
        "description": {"type": "string"},
        "steps": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    },
}


SITE_FIELDS = ("name", "url", "description", "contact", "docs_url", "agent_notes")
PAYMENT_HANDLER_TEXTS = ("handler_id", "name", "version", "spec", "config_schema")
CHECKOUT_LINK_TEXTS = ("type", "url", "title")


def _section(properties, required=()):
    return {"type": "object", "additionalProperties": False, "required": list(required), "properties": properties}


CONFIG_FILE_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["site", "session", "rate_limit", "audit", "capabilities", "flows"],
    "properties": {
        "site": _section(
            {k: {"type": "string"} for k in SITE_FIELDS},
            required=["name"],
        ),
        "session": _section(
            {"create": {"type": "string"}, "delete": {"type": "string"}, "ttl_seconds": {"type": "integer"}},
            required=["create"],
        ),
        "rate_limit": _section({"requests_per_minute": {"type": "integer"}, "max_sessions": {"type": "integer"}}),
        "audit": _section({"enabled": {"type": "boolean"}, "endpoint": {"type": "string"}}),
        "mcp": _section({"enabled": {"type": "boolean"}, "endpoint": {"type": "string"}}),
        "ucp": _section({"enabled": {"type": "boolean"}, "payment_handlers": {"type": "array", "items": _section(
            {name: {"type": "string"} for name in PAYMENT_HANDLER_TEXTS} | {
                "instrument_schemas": {"type": "array", "items": {"type": "string"}}, "config": {"type": "object"}},
            required=["handler_id", "name", "spec", "config_schema"])}, "links": {"type": "array", "items": _section(
            {name: {"type": "string"} for name in CHECKOUT_LINK_TEXTS}, required=["type", "url"])}}),
        "acp": _section({"enabled": {"type": "boolean"}, "versions": {"type": "array", "items": {"type": "string"}},
                         "intervention_types": {"type": "array", "items": {"type": "string"}}}),
        "capabilities": {"type": "array", "items": _CAPABILITY},
        "flows": {"type": "array", "items": _FLOW},
    },
}


class ConfigFileError(Exception):
    def __init__(self, errors):
        self.errors = errors
        super().__init__("\n".join(errors))


def export_config():
    config = load_config(as_declared=True)
    return {
        "site": {
            "name": config.site.name,
            "url": config.site.url,
            "description": config.site.description,
            "contact": config.site.contact,
            "docs_url": config.site.docs_url,
            "agent_notes": config.site.agent_notes,
        },
        "session": {
            "create": config.session.create_endpoint,
            "delete": config.session.delete_endpoint,
            "ttl_seconds": config.session.ttl_seconds,
        },
        "rate_limit": {
            "requests_per_minute": config.rate_limit.requests_per_minute,
            "max_sessions": config.rate_limit.max_sessions,
        },
        "audit": {"enabled": config.audit.enabled, "endpoint": config.audit.endpoint},
        "mcp": {"enabled": config.mcp.enabled, "endpoint": config.mcp.endpoint},
        "ucp": {"enabled": CommerceConfig.load().ucp_enabled, "payment_handlers": [
            {**{name: getattr(h, name) for name in PAYMENT_HANDLER_TEXTS}, "instrument_schemas": h.instrument_schemas,
             "config": h.config} for h in PaymentHandler.objects.all()],
            "links": [{name: getattr(link, name) for name in CHECKOUT_LINK_TEXTS} for link in CheckoutLink.objects.all()]},
        "acp": acp_section(CommerceConfig.load()),
        "capabilities": [_export_capability(c) for c in config.capabilities],
        "flows": [{"name": f.name, "description": f.description, "steps": list(f.steps)} for f in config.flows],
    }


def _export_capability(capability):
    return {
        "name": capability.name,
        "description": capability.description,
        "endpoint": capability.endpoint,
        "method": capability.method,
        "params": {
            p.name: {
                key: value
                for key, value in (
                    ("type", p.type),
                    ("required", p.required),
                    ("description", p.description),
                    ("default", p.default),
                    ("enum", list(p.enum) if p.enum is not None else None),
                    ("items", p.items),
                    ("minimum", p.minimum),
                    ("maximum", p.maximum),
                    ("min_length", p.min_length),
                    ("max_length", p.max_length),
                    ("format", p.format or None),
                )
                if value is not None
            }
            for p in capability.params
        },
        "requires_session": capability.requires_session,
        "human_handoff": capability.human_handoff,
        "enabled": capability.enabled,
        **({"calls_per_hour": capability.calls_per_hour} if capability.calls_per_hour else {}),
    }


def import_config(data):
    """Replace the configuration with `data`, or raise ConfigFileError and change nothing."""
    # Imported here: the settings' check imports this module at every start (SITE_FIELDS), and
    # jsonschema costs a process about 35 ms to import.
    from jsonschema import Draft7Validator

    shape_errors = [
        f"{'.'.join(str(p) for p in e.absolute_path) or '(file)'}: {e.message}"
        for e in Draft7Validator(CONFIG_FILE_SCHEMA).iter_errors(data)
    ]
    if shape_errors:
        raise ConfigFileError(shape_errors)
    with transaction.atomic():
        errors = write_config(data, apps.get_model, validate=True)
        if not errors:
            document = build_agents_json(load_config(), VALIDATION_ORIGIN)
            errors = [f"agents.json would be invalid: {e}" for e in agents_json_errors(document)]
        if errors:
            transaction.set_rollback(True)
            raise ConfigFileError(errors)


def write_config(data, get_model, validate):
    """Write `data` through the given model lookup (the real models, which know every key of
    the file: migrations write their own frozen rows instead), with one revision bump for all.

    With `validate`, every row is checked as admin checks it, against the rows written before
    it, and saved at once. Without (a file known to be valid, such as the default), the new rows
    of each table go in one INSERT at the end.

    Returns the validation errors, each prefixed with where in the file it comes from.
    """
    with one_revision_bump():
        return _write_config(data, get_model, validate)


def _write_config(data, get_model, validate):
    errors = []
    new_rows = {}  # model -> new rows for one INSERT, in the order of the file

    def model(name):
        return get_model("agents_protocol", name)

    def valid(obj, where, exclude=()):
        if not validate:
            return True
        try:
            obj.full_clean(exclude=exclude)
        except ValidationError as error:
            errors.extend(f"{where}: {message}" for message in _messages(error))
            return False
        return True

    def save(obj, where):
        if not valid(obj, where):
            return False
        obj.save()
        return True

    def add(obj, where):
        """A new row, which validation checks against the rows before it: saved at once then."""
        if validate:
            return save(obj, where)
        new_rows.setdefault(type(obj), []).append(obj)
        return True

    def add_part(obj, where, new_relations):
        """A new row of a new row (a capability's parameter, a flow's step), checked on its own and
        then kept for the INSERT: left out are the checks of `new_relations`, its foreign keys to
        rows this write added (they exist) and, with them, that a parameter's name is unique in
        its capability (it is a key of the file's object)."""
        if valid(obj, where, exclude=new_relations):
            new_rows.setdefault(type(obj), []).append(obj)

    def singleton(model_name, **values):
        obj = model(model_name).objects.filter(pk=1).first() or model(model_name)(pk=1)
        for field, value in values.items():
            setattr(obj, field, value)
        return obj

    for name in ("FlowStep", "Flow", "CapabilityParam", "Capability"):
        model(name).objects.all().delete()

    site, session = data["site"], data["session"]
    site_fields = {k: site.get(k, "") for k in SITE_FIELDS}  # agent_notes: "" in files exported before it
    save(singleton("SiteProfile", **site_fields), "site")
    save(singleton(
        "SessionConfig",
        create_endpoint=session["create"],
        delete_endpoint=session.get("delete", session["create"]),
        ttl_seconds=session.get("ttl_seconds", 1800),
    ), "session")
    save(singleton("RateLimitConfig", **data["rate_limit"]), "rate_limit")
    save(singleton("AuditConfig", **data["audit"]), "audit")
    save(singleton("McpConfig", **data.get("mcp", {})), "mcp")  # files exported before MCP have none
    write_ucp(data.get("ucp", {}), model, singleton, save, add)  # files exported before UCP have none
    if "acp" in data:  # files exported before ACP have none
        acp = data["acp"]
        save(singleton("CommerceConfig", **{f"acp_{name}": value for name, value in acp.items()}), "acp")

    capabilities = {}
    for position, entry in enumerate(data["capabilities"]):
        where = f"capabilities[{position}] ({entry['name']})"
        capability = model("Capability")(
            name=entry["name"],
            description=entry.get("description", ""),
            endpoint=entry["endpoint"],
            method=entry["method"],
            requires_session=entry.get("requires_session", False),
            human_handoff=entry.get("human_handoff", False),
            enabled=entry.get("enabled", True),
            calls_per_hour=entry.get("calls_per_hour"),
            position=position,
        )
        if not add(capability, where):
            continue
        capabilities[capability.name] = capability
        for param_position, (param_name, param) in enumerate(entry.get("params", {}).items()):
            add_part(model("CapabilityParam")(
                capability=capability,
                name=param_name,
                type=param["type"],
                description=param.get("description", ""),
                required=param.get("required", False),
                default=param.get("default"),
                enum=param.get("enum"),
                items=param.get("items"),
                minimum=param.get("minimum"),
                maximum=param.get("maximum"),
                min_length=param.get("min_length"),
                max_length=param.get("max_length"),
                format=param.get("format", ""),
                position=param_position,
            ), f"{where}.params.{param_name}", ["capability"])
        declared = {name: param["type"] for name, param in entry.get("params", {}).items()}
        problem = path_param_problem(entry["endpoint"], declared)
        if problem:
            errors.append(f"{where}: endpoint: {problem}")

    for position, entry in enumerate(data["flows"]):
        where = f"flows[{position}] ({entry['name']})"
        flow = model("Flow")(name=entry["name"], description=entry.get("description", ""), position=position)
        if not add(flow, where):
            continue
        for step_position, step in enumerate(entry["steps"]):
            if step not in capabilities:
                errors.append(f"{where}.steps[{step_position}]: unknown capability {step!r}.")
                continue
            add_part(model("FlowStep")(flow=flow, capability=capabilities[step], position=step_position),
                     f"{where}.steps[{step_position}]", ["flow", "capability"])
    for row_model, rows in new_rows.items():  # a table's rows come after those they refer to
        row_model.objects.bulk_create(rows)
    return errors


def acp_section(commerce):
    return {"enabled": commerce.acp_enabled, "versions": commerce.acp_versions,
            "intervention_types": commerce.acp_intervention_types}


def write_ucp(ucp, model, singleton, save, add):
    """UCP's switch and, when the file lists them, the payment handlers and checkout links (in the
    file's order): `save` writes the switch, `add` each new row."""
    if "enabled" in ucp:
        save(singleton("CommerceConfig", ucp_enabled=ucp["enabled"]), "ucp")
    for key, model_name in (("payment_handlers", "PaymentHandler"), ("links", "CheckoutLink")):
        if key in ucp:
            model(model_name).objects.all().delete()
            for position, fields in enumerate(ucp[key]):
                add(model(model_name)(position=position, **fields), f"ucp.{key}[{position}]")


def _messages(error):
    if hasattr(error, "message_dict"):
        return [f"{field}: {m}" if field != "__all__" else m
                for field, messages in error.message_dict.items() for m in messages]
    return list(error.messages)
