"""`manage.py agents_audit verify FILE_OR_URL [--public-key KEY] | seal-expired | prune`."""
import json
import sys
import urllib.request
from urllib.error import URLError
from urllib.parse import urlsplit

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from agents_protocol.audit import verify
from agents_protocol.audit.keys import key_id, verify_key_from_b64
from agents_protocol.audit.lifecycle import prune, seal_expired
from agents_protocol.core.models import SigningKey
from agents_protocol.documents.interop import AGENTS_JSON_PATH


class Command(BaseCommand):
    help = "Verify an audit artifact, seal expired sessions (for cron), or prune old trails."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        checker = actions.add_parser("verify", help="Verify an artifact from a file, - (stdin) or a URL.")
        checker.add_argument("source")
        checker.add_argument("--public-key", help="Base64 Ed25519 public key (as in agents.json audit.public_key).")
        checker.add_argument("--token", help="Session token, when fetching an artifact from its URL (--token=TOKEN: a token may start with -).")
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
        key, origin = choose_key(artifact, public_key, source)
        verdict = verify(artifact, key)
        self.stdout.write(f"Key: {origin}")
        if not verdict.ok:
            raise CommandError(str(verdict))
        self.stdout.write(self.style.SUCCESS(str(verdict)))


def choose_key(artifact, public_key, source):
    """(key, where it came from): the one given; else this site's record of the artifact's key_id;
    else the key the shop publishes in agents.json, the shop the artifact came from (its URL) or
    names (`site`); else the artifact's own, which proves integrity but not who signed."""
    if public_key:
        return public_key, "given with --public-key"
    fields = artifact if isinstance(artifact, dict) else {}
    named_key_id = fields.get("key_id")
    known = recorded_key(named_key_id)
    if known:
        return known.public_key, f"{known.key_id} from this site's key records"
    fetched_from = origin_of(source)
    shop = fetched_from or origin_of(fields.get("site"))
    if shop is None:
        return None, "the artifact's own public_key (proves integrity, not who signed: pass --public-key)"
    published = published_key(shop)
    origin = f"audit.public_key published at {shop}{AGENTS_JSON_PATH}"
    if fetched_from is None:
        origin += " (the shop the artifact itself names)"
    if key_id_of(published) != named_key_id:
        origin += (f"; that is key {key_id_of(published)} and the artifact names {named_key_id}: signed before the "
                   "shop rotated its key? Pass that key with --public-key")
    return published, origin


def recorded_key(key_id):
    """This site's SigningKey record of `key_id`, or None (also where no database is set up)."""
    try:
        return SigningKey.objects.filter(key_id=key_id).first() if key_id else None
    except DatabaseError:
        return None


def key_id_of(public_key):
    try:
        return key_id(verify_key_from_b64(public_key))
    except ValueError:
        return None


def origin_of(url):
    parts = urlsplit(url) if isinstance(url, str) else None
    return f"{parts.scheme}://{parts.netloc}" if parts and parts.scheme in ("http", "https") and parts.netloc else None


def published_key(shop):
    url = f"{shop}{AGENTS_JSON_PATH}"
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            key = json.loads(response.read().decode())["audit"]["public_key"]
    except (OSError, URLError, ValueError, KeyError, TypeError) as error:
        raise CommandError(f"Cannot read the audit key that {url} publishes ({error}); pass --public-key.")
    if not isinstance(key, str) or not key:
        raise CommandError(f"{url} publishes no audit.public_key; pass --public-key.")
    return key


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
