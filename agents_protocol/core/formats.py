"""Wire formats shared by the API and the documents."""
from datetime import timezone


def iso_utc(moment):
    """RFC 3339 timestamp in UTC with a Z, e.g. 2026-11-22T10:00:00Z (None stays None)."""
    if moment is None:
        return None
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
