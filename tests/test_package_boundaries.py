"""agents_protocol's layers and the shop's boundary: import-linter contracts (pyproject.toml)."""
import shutil
import subprocess
import sys
from pathlib import Path

from acme.agents import AcmeProvider
from agents_protocol.testing import assert_implements_provider

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
CHECKED_PACKAGES = ("agents_protocol", "acme", "catalog", "cart")


def lint_imports(tree):
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=tree, capture_output=True, text=True, timeout=120)


def copy_of_the_tree(tmp_path):
    for package in CHECKED_PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def plant(tree, module, line):
    path = tree.joinpath(*module.split(".")).with_suffix(".py")
    path.write_text(path.read_text() + f"\n{line}\n")


def test_every_import_contract_is_kept():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 kept, 0 broken" in result.stdout


def test_core_importing_http_breaks_the_layers_and_makes_a_cycle(tmp_path):
    tree = copy_of_the_tree(tmp_path)
    plant(tree, "agents_protocol.core.formats", "import agents_protocol.http.views")
    result = lint_imports(tree)
    assert result.returncode == 1
    assert "agents_protocol.core.formats -> agents_protocol.http.views" in result.stdout
    assert "3 kept, 2 broken" in result.stdout


def test_the_app_importing_the_shop_is_refused(tmp_path):
    tree = copy_of_the_tree(tmp_path)
    plant(tree, "agents_protocol.core.handlers", "import catalog.selectors")
    result = lint_imports(tree)
    assert result.returncode == 1 and "agents_protocol never imports the shop BROKEN" in result.stdout


def test_the_site_reaching_into_the_pipeline_is_refused(tmp_path):
    tree = copy_of_the_tree(tmp_path)
    plant(tree, "acme.agents", "from agents_protocol.http import limits")
    result = lint_imports(tree)
    assert result.returncode == 1 and "acme.agents -> agents_protocol.http.limits" in result.stdout


def test_the_acme_provider_implements_every_protocol_method_with_its_signature():
    assert_implements_provider(AcmeProvider)


def test_the_app_importing_its_oscar_integration_is_refused(tmp_path):
    """contrib is the top layer: a shop without the [oscar] extra never loads Oscar."""
    tree = copy_of_the_tree(tmp_path)
    plant(tree, "agents_protocol.checks", "import agents_protocol.contrib.oscar.provider")
    result = lint_imports(tree)
    assert result.returncode == 1
    assert "agents_protocol.checks -> agents_protocol.contrib.oscar.provider" in result.stdout
