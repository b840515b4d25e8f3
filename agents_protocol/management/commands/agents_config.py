"""`manage.py agents_config export` / `manage.py agents_config import FILE` (FILE may be -)."""
import json
import sys

from django.core.management.base import BaseCommand, CommandError

from agents_protocol.config_io import ConfigFileError, export_config, import_config


class Command(BaseCommand):
    help = "Export the agents capability configuration as JSON, or replace it from a JSON file."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        actions.add_parser("export", help="Print the whole configuration as JSON.")
        importer = actions.add_parser("import", help="Replace the configuration from FILE, atomically.")
        importer.add_argument("file", help="Path to a JSON file, or - for standard input.")

    def handle(self, *args, action, **options):
        if action == "export":
            self.stdout.write(json.dumps(export_config(), indent=2, ensure_ascii=False))
            return
        data = self._read(options["file"])
        try:
            import_config(data)
        except ConfigFileError as error:
            raise CommandError("Configuration not imported; nothing changed:\n  " + "\n  ".join(error.errors))
        self.stdout.write(self.style.SUCCESS(
            f"Imported {len(data['capabilities'])} capabilities and {len(data['flows'])} flows."
        ))

    def _read(self, path):
        try:
            text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
            return json.loads(text)
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror}.")
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise CommandError(f"{path} is not valid JSON: {error}.")
