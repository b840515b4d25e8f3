"""agents_protocol stands alone, and this shop reaches it only through its public interface."""
import ast
from pathlib import Path

import pytest

from acme.agents import AcmeProvider
from agents_protocol.testing import assert_implements_provider

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "agents_protocol"
SHOP_PACKAGES = ("acme", "catalog", "cart")
# What a shop's provider may import from the app (docs/integration.md, "The public interface").
PROVIDER_MODULES = {"agents_protocol.provider", "agents_protocol.errors", "agents_protocol.formats",
                    "agents_protocol.capabilities"}


def imported_modules(path):
    """Every module an import statement of `path` names (`from a import b` gives a and a.b)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_imported_modules_sees_every_form_of_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import acme\nimport os.path as p\nfrom cart import services\nfrom .x import y\n"
                      "def f():\n    from catalog.models import Product\n")
    assert imported_modules(sample) == {
        "acme", "os.path", "cart", "cart.services", "catalog.models", "catalog.models.Product",
    }


APP_FILES = sorted(APP.rglob("*.py"))


@pytest.mark.parametrize("path", APP_FILES, ids=[str(p.relative_to(ROOT)) for p in APP_FILES])
def test_the_app_imports_nothing_from_the_shop(path):
    shop_imports = {name for name in imported_modules(path) if name.split(".")[0] in SHOP_PACKAGES}
    assert shop_imports == set()


def test_every_module_of_the_app_was_scanned():
    assert len(APP_FILES) > 50
    assert APP / "migrations" / "0001_initial.py" in APP_FILES
    assert APP / "management" / "commands" / "agents_config.py" in APP_FILES


def test_the_acme_provider_implements_every_protocol_method_with_its_signature():
    assert_implements_provider(AcmeProvider)


def test_the_acme_provider_imports_only_the_apps_public_modules():
    tree = ast.parse((ROOT / "acme" / "agents.py").read_text())
    from_app = [(node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and (node.module or "").startswith("agents_protocol") for alias in node.names]
    plain = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names if alias.name.startswith("agents_protocol")]
    assert plain == []
    assert {module for module, _ in from_app} == {"agents_protocol.errors", "agents_protocol.formats",
                                                   "agents_protocol.provider"} <= PROVIDER_MODULES
    assert [name for _, name in from_app if name.startswith("_")] == []


def test_no_other_shop_code_imports_the_app():
    """Settings and URLconf name the app by string; models refer to AgentSession as "agents_protocol.AgentSession"."""
    importers = sorted(
        str(path.relative_to(ROOT))
        for package in SHOP_PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if any(name.startswith("agents_protocol") for name in imported_modules(path))
    )
    assert importers == ["acme/agents.py"]
