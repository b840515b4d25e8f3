"""agents_protocol here is the installed wheel, alone with its dependencies, and fits this shop."""
import importlib.metadata
import importlib.util
import re
import sysconfig
import tomllib
from importlib.resources import files
from io import StringIO
from pathlib import Path

from django.core.checks import run_checks
from django.core.management import call_command
from django.test import TestCase

import agents_protocol
from agents_protocol.core.provider import get_provider
from agents_protocol.testing import assert_implements_provider
from store.agents import StoreProvider

REPO_ROOT = Path(__file__).resolve().parents[4]
SHOP_REQUIREMENTS = Path(__file__).resolve().parents[2] / "requirements.txt"  # the shop's own, beside the wheel
# What a virtualenv holds before anything is installed into it.
VIRTUALENV_SEED = {"pip", "setuptools", "wheel"}


def normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def dependency_closure(distribution):
    """Names of `distribution` and of everything it requires, transitively (extras left out)."""
    seen, pending = set(), [distribution]
    while pending:
        name = normalized(pending.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            requirements = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue  # a requirement for another platform or Python, never installed here
        pending += [re.match(r"[A-Za-z0-9._-]+", r).group() for r in requirements if "extra ==" not in r]
    return seen


def shop_requirements():
    lines = SHOP_REQUIREMENTS.read_text().splitlines()
    return [re.match(r"[A-Za-z0-9._-]+", line).group() for line in lines if line and not line.startswith("#")]


class InstalledPackageTests(TestCase):
    def test_agents_protocol_is_imported_from_the_installed_wheel_not_the_repository(self):
        package = Path(agents_protocol.__file__).resolve().parent
        self.assertNotEqual(package, REPO_ROOT / "agents_protocol")
        self.assertEqual(package, Path(sysconfig.get_paths()["purelib"]).resolve() / "agents_protocol")
        version = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]
        self.assertEqual(importlib.metadata.version("agents-protocol"), version)

    def test_the_acme_site_is_not_importable_here(self):
        for name in ("acme", "catalog", "cart", "tests"):
            with self.subTest(name=name):
                self.assertIsNone(importlib.util.find_spec(name))

    def test_the_virtualenv_holds_only_django_the_wheels_dependencies_and_the_shops_own(self):
        installed = {normalized(d.metadata["Name"]) for d in importlib.metadata.distributions()}
        shop_own = set().union(*(dependency_closure(name) for name in shop_requirements()))
        extra = installed - dependency_closure("agents-protocol") - shop_own - VIRTUALENV_SEED
        self.assertEqual(extra, set())
        self.assertIn("django", installed)
        self.assertIn("djangorestframework", shop_own)
        self.assertIn("djangorestframework", dependency_closure("agents-protocol"))

    def test_the_wheel_ships_the_canonical_schema_unchanged(self):
        shipped = files("agents_protocol") / "schemas" / "agents.schema.json"
        repository_copy = REPO_ROOT / "agents_protocol" / "schemas" / "agents.schema.json"
        self.assertEqual(shipped.read_bytes(), repository_copy.read_bytes())

    def test_every_migration_is_shipped_and_the_models_need_no_new_one(self):
        shipped = sorted(p.name for p in (files("agents_protocol") / "migrations").iterdir() if p.name[0].isdigit())
        in_repository = sorted(p.name for p in (REPO_ROOT / "agents_protocol" / "migrations").glob("[0-9]*.py"))
        self.assertEqual(shipped, in_repository)
        output = StringIO()
        call_command("makemigrations", "agents_protocol", "store", "--check", "--dry-run", stdout=output)
        self.assertIn("No changes detected", output.getvalue())

    def test_system_checks_find_nothing_wrong_with_this_shop(self):
        problems = [f"{m.id}: {m.msg}" for m in run_checks() if m.id and m.id.startswith("agents_protocol")]
        self.assertEqual(problems, [])

    def test_the_provider_implements_the_protocol_and_is_the_one_configured(self):
        assert_implements_provider(StoreProvider)
        self.assertIsInstance(get_provider(), StoreProvider)
