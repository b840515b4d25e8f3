"""agents_protocol here is the installed wheel with its [oscar] extra, and fits this Oscar shop."""
import importlib.metadata
import importlib.util
import re
from io import StringIO
from pathlib import Path

from django.core.checks import run_checks
from django.core.management import call_command
from django.test import TestCase

import agents_protocol
from agents_protocol.contrib.oscar.provider import OscarProvider
from agents_protocol.core.provider import ShopProvider, get_provider

REPO_ROOT = Path(__file__).resolve().parents[4]
SHOP_REQUIREMENTS = Path(__file__).resolve().parents[2] / "requirements.txt"
VIRTUALENV_SEED = {"pip", "setuptools", "wheel"}  # what a virtualenv holds before anything is installed


def normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def dependency_closure(name, extras=()):
    """Names of distribution `name` and of everything it requires with `extras`, transitively."""
    seen, pending = set(), [(name, tuple(extras))]
    while pending:
        name, extras = pending.pop()
        if normalized(name) in seen:
            continue
        seen.add(normalized(name))
        try:
            requirements = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue  # a requirement for another platform or Python, never installed here
        for requirement in requirements:
            marker = requirement.partition(";")[2].replace("'", '"')
            if "extra ==" not in marker or any(f'extra == "{extra}"' in marker for extra in extras):
                pending.append((re.match(r"[A-Za-z0-9._-]+", requirement).group(), ()))
    return seen


def shop_requirements():
    """(name, extras) of each line of the shop's requirements.txt."""
    lines = [line for line in SHOP_REQUIREMENTS.read_text().splitlines() if line and not line.startswith("#")]
    found = [re.match(r"([A-Za-z0-9._-]+)(?:\[([^\]]+)\])?", line).groups() for line in lines]
    return [(name, extras.split(",") if extras else []) for name, extras in found]


class InstalledPackageTests(TestCase):
    def test_agents_protocol_and_oscar_are_installed_packages_not_the_checkout(self):
        self.assertNotEqual(Path(agents_protocol.__file__).resolve().parent, REPO_ROOT / "agents_protocol")
        self.assertTrue(importlib.metadata.version("django-oscar").startswith("4."))
        requirements = [r.replace('"', "'") for r in importlib.metadata.requires("agents-protocol")]
        self.assertIn("django-oscar<5,>=4.2; extra == 'oscar'", requirements)
        for name in ("acme", "catalog", "cart", "tests"):
            with self.subTest(name=name):
                self.assertIsNone(importlib.util.find_spec(name))

    def test_the_virtualenv_holds_only_the_wheel_with_its_oscar_extra_and_the_shops_requirements(self):
        installed = {normalized(d.metadata["Name"]) for d in importlib.metadata.distributions()}
        wanted = dependency_closure("agents-protocol", ["oscar"])
        wanted |= set().union(*(dependency_closure(name, extras) for name, extras in shop_requirements()))
        self.assertEqual(installed - wanted - VIRTUALENV_SEED, set())
        self.assertLessEqual({"django-oscar", "django-haystack", "psycopg-binary", "playwright"}, installed)
        self.assertNotIn("django-oscar", dependency_closure("agents-protocol"))

    def test_the_provider_is_the_ready_made_one(self):
        self.assertIsInstance(get_provider(), OscarProvider)
        self.assertTrue(issubclass(OscarProvider, ShopProvider))

    def test_no_system_check_problem_and_no_missing_migration(self):
        problems = run_checks(include_deployment_checks=False, databases=["default"])
        # django-ratelimit warns about every cache outside its short list (W001), diskcache's too,
        # whose count is exact across processes all the same (docs/integration.md).
        self.assertEqual([problem for problem in problems
                          if not problem.is_silenced() and problem.id != "django_ratelimit.W001"], [])
        call_command("makemigrations", "--check", "--dry-run", stdout=StringIO())
