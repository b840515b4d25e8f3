"""agents_protocol here is the installed wheel with its [oscar] extra, and fits this Oscar shop."""
import importlib.metadata
import importlib.util
from io import StringIO
from pathlib import Path

from django.core.checks import run_checks
from django.core.management import call_command
from django.test import TestCase

import agents_protocol
from agents_protocol.contrib.oscar.provider import OscarProvider
from agents_protocol.core.provider import ShopProvider, get_provider

REPO_ROOT = Path(__file__).resolve().parents[4]


class InstalledPackageTests(TestCase):
    def test_agents_protocol_and_oscar_are_installed_packages_not_the_checkout(self):
        self.assertNotEqual(Path(agents_protocol.__file__).resolve().parent, REPO_ROOT / "agents_protocol")
        self.assertTrue(importlib.metadata.version("django-oscar").startswith("4."))
        requirements = [r.replace('"', "'") for r in importlib.metadata.requires("agents-protocol")]
        self.assertIn("django-oscar<5,>=4.2; extra == 'oscar'", requirements)
        for name in ("acme", "catalog", "cart", "tests"):
            with self.subTest(name=name):
                self.assertIsNone(importlib.util.find_spec(name))

    def test_the_provider_is_the_ready_made_one(self):
        self.assertIsInstance(get_provider(), OscarProvider)
        self.assertTrue(issubclass(OscarProvider, ShopProvider))

    def test_no_system_check_problem_and_no_missing_migration(self):
        problems = run_checks(include_deployment_checks=False, databases=["default"])
        self.assertEqual([problem for problem in problems if not problem.is_silenced()], [])
        call_command("makemigrations", "--check", "--dry-run", stdout=StringIO())
