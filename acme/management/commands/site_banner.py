"""Print where the site answers, for `make run`."""
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Print the site, agents.json and admin URLs for a host and port."
    # `make run` runs these right after migrate, which has just run the system checks.
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")

    def handle(self, *args, host, port, **options):
        shown_host = f"[{host}]" if ":" in host else host
        base = f"http://{shown_host}:{port}"
        self.stdout.write(
            "\nAcme Ceramics is starting.\n"
            f"  Site:        {base}/\n"
            f"  agents.json: {base}/.well-known/agents.json\n"
            f"  agents.txt:  {base}/.well-known/agents.txt\n"
            f"  Admin:       {base}/admin/  (user 'admin'; the password was printed when it was created,\n"
            "               or set a new one: .venv/bin/python manage.py changepassword admin)\n"
        )
