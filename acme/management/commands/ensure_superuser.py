"""Create the first admin account with a random password, printed once. Does nothing later."""
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import IntegrityError, transaction

EXISTS = "Admin: a superuser exists already (reset with: manage.py changepassword <name>)."


class Command(BaseCommand):
    help = "Create an 'admin' superuser with a random password if no superuser exists yet."
    # `make run` runs these right after migrate, which has just run the system checks.
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")
        parser.add_argument("--email", default="admin@localhost")

    def handle(self, *args, username, email, **options):
        users = get_user_model()
        if users.objects.filter(is_superuser=True).exists():
            self.stdout.write(EXISTS)
            return
        password = secrets.token_urlsafe(12)
        try:
            with transaction.atomic():
                users.objects.create_superuser(username=username, email=email, password=password)
        except IntegrityError:  # another process created it since the check above, or an account has the name
            self.stdout.write(f"Admin: an account named {username!r} exists already; nothing was created.")
            return
        self.stdout.write(self.style.WARNING(
            f"Admin account created. Username: {username}  Password: {password}\n"
            "This password is shown only once. Change it with: .venv/bin/python manage.py changepassword admin"
        ))
