"""`manage.py agents_audit verify FILE_OR_URL [--public-key KEY] | seal-expired | prune`."""
import json
import sys
import urllib.request
from urllib.error import URLError

from django.core.management.base import BaseCommand, CommandError

from agents_protocol.audit import verify
from agents_protocol.audit.lifecycle import prune, seal_expired
from agents_protocol.core.models import SigningKey


class Command(BaseCommand):
    help = "Verify an audit artifact, seal expired sessions (for cron), or prune old trails."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        checker = actions.add_parser("verify", help="Verify an artifact from a file, - (stdin) or a URL.")
        checker.add_argument("source")
        checker.add_argument("--public-key", help="Base64 Ed25519 public key (as in agents.json audit.public_key).")
        checker.add_argument("--token", help="Session token, when fetching an artifact from its URL.")
        actions.add_parser("seal-expired", help="End and seal every session past its deadline.")
        actions.add_parser("prune", help="Delete sessions that ended more than AUDIT_RETENTION_DAYS ago, with their trails.")

    def handle(self, *args, action, **options):
        if action == "seal-expired":
            self.stdout.write(f"Sealed {seal_expired()} expired sessions.")
        elif action == "prune":
            self.stdout.write(f"Pruned {prune()} sessions and their audit trails.")
        else:
            self.verify(options["source"], options["public_key"], options["token"])

    def verify(self, source, public_key, token):
        artifact = load_artifact(source, token)
        key, origin = self.choose_key(artifact, public_key)
        verdict = verify(artifact, key)
        self.stdout.write(f"Key: {origin}")
        if not verdict.ok:
            raise CommandError(str(verdict))
        self.stdout.write(self.style.SUCCESS(str(verdict)))

    @staticmethod
    def choose_key(artifact, public_key):
        if public_key:
            return public_key, "given with --public-key"
        known = SigningKey.objects.filter(key_id=artifact.get("key_id") if isinstance(artifact, dict) else None).first()
        if known:
            return known.public_key, f"{known.key_id} from this site's key records"
        return None, "the artifact's own public_key (proves integrity, not who signed: pass --public-key)"


def load_artifact(source, token=None):
    try:
        if source.startswith(("http://", "https://")):
            request = urllib.request.Request(source, headers={"Authorization": f"Bearer {token}"} if token else {})
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read().decode()
        else:
            text = sys.stdin.read() if source == "-" else open(source, encoding="utf-8").read()
        document = json.loads(text)
    except (OSError, URLError) as error:
        raise CommandError(f"Cannot read {source}: {error}")
    except ValueError as error:
        raise CommandError(f"{source} is not JSON: {error}")
    if isinstance(document, dict) and document.get("ok") is True and "data" in document:
        return document["data"]  # the API's envelope
    return document
