"""`manage.py agents_config export|import`: configuration as code, validated like admin."""
import json
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from agents_protocol.checkout.models import CheckoutLink, PaymentHandler
from agents_protocol.config_io import export_config, import_config
from agents_protocol.core.config import current_revision
from agents_protocol.core.defaults import default_config
from agents_protocol.models import Capability
from agents_protocol.signals import CONFIG_MODELS
from agents_protocol.testing import install_default_config
from tests.servers import ROOT, migrate, site_env

pytestmark = pytest.mark.django_db


def run_import(tmp_path, data):
    path = tmp_path / "config.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    call_command("agents_config", "import", str(path))


def exported(capsys):
    capsys.readouterr()
    call_command("agents_config", "export")
    return json.loads(capsys.readouterr().out)


def test_export_prints_the_whole_config_including_disabled_capabilities(capsys):
    Capability.objects.filter(name="contact").update(enabled=False)
    data = exported(capsys)
    assert set(data) == {"site", "session", "rate_limit", "audit", "mcp", "ucp", "acp", "capabilities", "flows"}
    assert data["mcp"] == {"enabled": True, "endpoint": "/mcp"}
    assert data["acp"] == {"enabled": False, "versions": ["2026-04-17"], "intervention_types": []}
    contact = next(c for c in data["capabilities"] if c["name"] == "contact")
    assert contact["enabled"] is False
    sort = next(c for c in data["capabilities"] if c["name"] == "browse")["params"]["sort"]
    assert sort == {"type": "string", "required": False, "description": "Sort order",
                    "default": "newest", "enum": ["price_asc", "price_desc", "newest"]}


def test_export_then_import_is_an_identity(tmp_path, capsys):
    data = exported(capsys)
    run_import(tmp_path, data)
    assert exported(capsys) == data


def test_import_replaces_the_config_and_bumps_the_revision(tmp_path, capsys):
    data = exported(capsys)
    data["capabilities"] = [c for c in data["capabilities"] if c["name"] in {"search", "detail"}]
    data["flows"] = [{"name": "look", "description": "Find and read", "steps": ["search", "detail"]}]
    data["session"]["ttl_seconds"] = 120
    revision = current_revision()
    run_import(tmp_path, data)
    assert list(Capability.objects.values_list("name", flat=True)) == ["search", "detail"]
    assert current_revision() == revision + 1  # one bump for the whole file, not one per row
    assert exported(capsys) == data


def test_a_row_saved_or_deleted_on_its_own_as_admin_does_bumps_the_revision():
    revision = current_revision()
    capability = Capability.objects.get(name="search")
    capability.description = "Find products"
    capability.save()
    assert current_revision() == revision + 1
    Capability.objects.get(name="contact").delete()
    assert current_revision() > revision + 1


def config_rows():
    """Every configuration row without ids; a row it refers to is named by its own name."""
    return {
        model.__name__: [
            {field.name: str(getattr(row, field.name)) if field.is_relation else getattr(row, field.name)
             for field in model._meta.concrete_fields if not field.primary_key}
            for row in model.objects.order_by("pk")
        ]
        for model in (*CONFIG_MODELS, PaymentHandler, CheckoutLink)
    }


def test_install_default_config_writes_the_rows_an_import_of_the_default_writes():
    Capability.objects.filter(name="contact").update(description="Changed")
    install_default_config()
    installed = config_rows()
    import_config(default_config())
    assert config_rows() == installed
    assert installed["Capability"] and installed["CapabilityParam"] and installed["FlowStep"]


def test_import_can_switch_to_the_seed_000_single_cart_path_layout(tmp_path, capsys):
    data = exported(capsys)
    cart_methods = {"cart.add": "POST", "cart.view": "GET", "cart.update": "PATCH", "cart.remove": "DELETE"}
    for capability in data["capabilities"]:
        if capability["name"] in cart_methods:
            capability["endpoint"] = "/.well-known/agents/api/cart"
            capability["method"] = cart_methods[capability["name"]]
        if capability["name"] == "detail":
            capability["endpoint"] = "/.well-known/agents/api/detail"
    run_import(tmp_path, data)
    assert Capability.objects.filter(endpoint="/.well-known/agents/api/cart").count() == 4


INVALID_CHANGES = {
    "capital name": (lambda d: d["capabilities"][0].update(name="Search"), "lowercase letters"),
    "unknown flow step": (lambda d: d["flows"][0]["steps"].append("teleport"), "unknown capability 'teleport'"),
    "disabled flow step": (
        lambda d: next(c for c in d["capabilities"] if c["name"] == "checkout").update(enabled=False),
        "checkout is disabled",
    ),
    "ttl below 60": (lambda d: d["session"].update(ttl_seconds=59), "greater than or equal to 60"),
    "duplicate route": (
        lambda d: d["capabilities"][1].update(endpoint=d["capabilities"][0]["endpoint"], method="GET"),
        "already uses this endpoint and method",
    ),
    "param type": (lambda d: d["capabilities"][0]["params"]["q"].update(type="text"), "is not a valid choice"),
    "enum default": (
        lambda d: d["capabilities"][1]["params"]["sort"].update(default="cheapest"),
        "Default must be one of the enum values",
    ),
    "unknown key": (lambda d: d["site"].update(colour="blue"), "Additional properties are not allowed"),
    "wrong type": (lambda d: d["rate_limit"].update(requests_per_minute="60"), "'60' is not of type 'integer'"),
    "no capability enabled": (
        lambda d: (d.update(flows=[]), [c.update(enabled=False) for c in d["capabilities"]]),
        "should be non-empty",
    ),
    "bad site url": (lambda d: d["site"].update(url="not a url"), "Enter a valid URL"),
}


@pytest.mark.parametrize("change", INVALID_CHANGES.values(), ids=INVALID_CHANGES.keys())
def test_an_invalid_file_is_refused_with_a_clear_error_and_changes_nothing(tmp_path, capsys, change):
    mutate, message = change
    data = exported(capsys)
    before = (export_config(), current_revision())
    mutate(data)
    with pytest.raises(CommandError) as error:
        run_import(tmp_path, data)
    assert message in str(error.value)
    assert "nothing changed" in str(error.value)
    assert (export_config(), current_revision()) == before


@pytest.mark.parametrize("content", ["{not json", "[]", ""])
def test_malformed_files_are_refused(tmp_path, content):
    before = export_config()
    with pytest.raises(CommandError):
        run_import(tmp_path, content)
    assert export_config() == before


def test_a_missing_file_is_a_clear_error():
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("agents_config", "import", "/nonexistent/config.json")


def test_the_command_exits_non_zero_on_an_invalid_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"site": {}}))
    env = site_env(tmp_path)
    migrate(env)
    result = subprocess.run([sys.executable, "manage.py", "agents_config", "import", str(path)],
                            cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode != 0
    assert "nothing changed" in result.stderr and "'name' is a required property" in result.stderr


def test_acp_is_configured_as_code_and_refused_when_wrong(capsys, tmp_path):
    data = exported(capsys)
    data["acp"] = {"enabled": True, "versions": ["2026-04-17"], "intervention_types": ["3ds"]}
    (tmp_path / "config.json").write_text(json.dumps(data))
    call_command("agents_config", "import", str(tmp_path / "config.json"))
    assert exported(capsys)["acp"] == data["acp"]
    data["acp"]["versions"] = ["1999-01-01"]
    (tmp_path / "config.json").write_text(json.dumps(data))
    with pytest.raises(CommandError, match="acp"):
        call_command("agents_config", "import", str(tmp_path / "config.json"))
