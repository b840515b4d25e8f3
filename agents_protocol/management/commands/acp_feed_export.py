"""Write the ACP product feed: `manage.py acp_feed_export DIRECTORY [--origin https://shop.example]`.

DIRECTORY gets `metadata.json` and `products.jsonl` (documents/acp_feed.py), the offline full
replacement a platform ingests. Each file is written beside its final name and renamed over it
once complete, so a reader never sees half a feed; the products are written as the provider
reads them, in memory that does not grow with the catalog. Product URLs start with the site's
URL (admin), else --origin.
"""
import os
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from agents_protocol.core import codec
from agents_protocol.core.config import current_config
from agents_protocol.core.provider import CallContext, get_provider, is_absolute_http_url
from agents_protocol.documents import acp_feed
from agents_protocol.documents.interop import site_base


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path)
        parser.add_argument("--origin", default="", help="the site's origin, when admin names no site URL")

    def handle(self, directory, origin, **options):
        config = current_config()
        base = site_base(config, origin.rstrip("/"))
        if not is_absolute_http_url(base):
            raise CommandError("Name the site's URL in admin or pass --origin https://your.shop: product URLs "
                               "in the feed are absolute.")
        if not directory.is_dir():
            raise CommandError(f"{directory} is not a directory.")
        items = get_provider().catalog_items(CallContext(session=None, origin=base))
        count = write_atomically(directory / acp_feed.PRODUCTS_FILE,
                                 acp_feed.product_lines(items, config.site.name))
        write_atomically(directory / acp_feed.METADATA_FILE,
                         [codec.encode_document(acp_feed.feed_metadata(config, timezone.now()))])
        self.stdout.write(f"Wrote {count} products to {directory / acp_feed.PRODUCTS_FILE}.")


def write_atomically(path, chunks):
    """Write `chunks` (bytes) to a file beside `path`, then rename it to `path`; how many were written."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    count = 0
    try:
        with os.fdopen(handle, "wb") as file:
            for chunk in chunks:
                file.write(chunk)
                count += 1
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return count
