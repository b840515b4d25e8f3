"""`manage.py agents_prune`: for cron, daily. Everything agents_protocol keeps that grows with
agent traffic, each kept as long as its setting says (docs/deploy.md, "Upkeep")."""
from django.core.management.base import BaseCommand

from agents_protocol.activity import recorder
from agents_protocol.audit import lifecycle
from agents_protocol.core.conf import app_settings
from agents_protocol.http import idempotency


class Command(BaseCommand):
    help = ("Seal expired sessions, then delete sessions that ended more than AUDIT_RETENTION_DAYS ago (with "
            "their trails and handoffs), expired Idempotency-Keys, and calls older than ACTIVITY_RETENTION_DAYS.")

    def handle(self, *args, **options):
        sealed = lifecycle.seal_expired()
        sessions = lifecycle.prune()
        keys = idempotency.prune()
        calls = recorder.prune(app_settings.ACTIVITY_RETENTION_DAYS)
        self.stdout.write(f"Sealed {sealed} expired sessions; pruned {sessions} sessions with their trails, "
                          f"{keys} Idempotency-Keys and {calls} activity calls.")
