"""The site's signing key: one per deployment, the same in every worker and after restarts.

It comes from AGENTS_PROTOCOL["SIGNING_KEY"] (a base64 seed from the environment or a
secret store), else from AGENTS_PROTOCOL["SIGNING_KEY_FILE"], created on first use with
mode 0600 by whichever process gets there first. Rotation replaces the file atomically;
every worker notices by the file's modification time.
"""
import base64
import os
import secrets
from functools import lru_cache
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from nacl.signing import SigningKey as NaclSigningKey

from agents_protocol.audit.keys import key_id, public_key_b64
from agents_protocol.core.conf import app_settings
from agents_protocol.core.models import SigningKey


def signing_key():
    seed = app_settings.SIGNING_KEY
    if seed:
        return _key_from_seed(seed)
    path = key_file()
    if not path.exists():
        _create_key_file(path, NaclSigningKey.generate())
    stat = path.stat()  # a rotation (os.replace) makes a new inode, even within one timestamp tick
    return _key_from_file(str(path), (stat.st_ino, stat.st_mtime_ns, stat.st_size))


def key_file():
    path = app_settings.SIGNING_KEY_FILE
    if not path:
        raise ImproperlyConfigured('Audit needs AGENTS_PROTOCOL["SIGNING_KEY"] or ["SIGNING_KEY_FILE"].')
    return Path(path)


@lru_cache(maxsize=4)
def _key_from_seed(seed):
    raw = base64.b64decode(seed)
    if len(raw) != 32:
        raise ImproperlyConfigured("The audit SIGNING_KEY must be base64 of exactly 32 bytes.")
    return NaclSigningKey(raw)


@lru_cache(maxsize=4)
def _key_from_file(path, version):
    return _key_from_seed(Path(path).read_text().strip())


def _create_key_file(path, key):
    """Create `path` holding `key`, unless it exists: the first complete file wins.

    The key is written to a private staging file first and then hard-linked into place,
    so no process can ever read a half-written key file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = _write_staging(path, key)
    try:
        os.link(staging, path)
    except FileExistsError:
        pass  # another process created it first; everyone uses that one
    finally:
        staging.unlink()


def _write_staging(path, key):
    staging = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(base64.b64encode(bytes(key)).decode())
    return staging


def replace_key_file(key):
    """Swap in a new key: written privately, then renamed over the old file (atomic on POSIX)."""
    path = key_file()
    os.replace(_write_staging(path, key), path)


def current_key_record():
    """The database record of the key in use, created the first time it signs."""
    verify_key = signing_key().verify_key
    record, _ = SigningKey.objects.get_or_create(
        key_id=key_id(verify_key), defaults={"public_key": public_key_b64(verify_key)}
    )
    return record
