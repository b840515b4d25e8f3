"""`manage.py agents_keys list|rotate`: the audit signing keys."""
from django.core.management.base import BaseCommand, CommandError

from agents_protocol.audit.lifecycle import rotate_key
from agents_protocol.audit.signing import current_key_record
from agents_protocol.core.conf import app_settings
from agents_protocol.core.models import SigningKey


class Command(BaseCommand):
    help = "List the audit signing keys, or rotate to a new one (ends live sessions, reason 'rotated')."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        actions.add_parser("list", help="Show every key id and public key, newest first.")
        actions.add_parser("rotate", help="Seal live sessions with the current key, then switch keys.")

    def handle(self, *args, action, **options):
        if action == "list":
            current_key_record()
            for key in SigningKey.objects.all():
                state = f"retired {key.retired_at:%Y-%m-%d %H:%M}" if key.retired_at else "current"
                self.stdout.write(f"{key.key_id}  {key.public_key}  {state}")
            return
        if app_settings.SIGNING_KEY:
            raise CommandError(
                "The signing key comes from the SIGNING_KEY setting (environment). Put a new key there and "
                "restart; old public keys stay in the database, so old artifacts keep verifying."
            )
        old, new, ended = rotate_key()
        self.stdout.write(self.style.SUCCESS(f"Rotated {old} → {new}; {ended} live sessions ended and sealed."))
