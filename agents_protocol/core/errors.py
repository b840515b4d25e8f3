"""The one error type of the agent API. Handlers and shop providers raise it; the API
turns it into the envelope `{"ok": false, "error", "code", "fields"?}` with its status."""
from django.core.exceptions import ObjectDoesNotExist
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404

# What Django code raises for something missing (get_object_or_404, Model.objects.get): a 404.
MISSING = (Http404, ObjectDoesNotExist)


# A refusal's status: an HTTP error, or the 308 that sends an agent to HTTPS (http/middleware.py).
REFUSAL_STATUSES = frozenset({308, *range(400, 600)})


def is_database_outage(error):
    """True for a database that cannot be reached, is locked past the busy timeout or cannot be
    read (a corrupt SQLite file is the driver's plain DatabaseError, "file is not a database"),
    not for a statement the database refused (IntegrityError, ProgrammingError …)."""
    return isinstance(error, (OperationalError, InterfaceError)) or type(error) is DatabaseError


class CapabilityError(Exception):
    def __init__(self, status, code, message, fields=None, headers=None):
        if not isinstance(status, int) or status not in REFUSAL_STATUSES:
            # Raised where a provider makes one: it becomes the 500 envelope, never a 200 refusal or an HTML page.
            raise ValueError(f"A CapabilityError's status is an HTTP error status, 400 to 599, not {status!r}.")
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields
        self.headers = headers or {}


def envelope_of(refusal):
    """The envelope of a CapabilityError: what every refusal of the app answers, whoever writes it."""
    body = {"ok": False, "error": refusal.message, "code": refusal.code}
    if refusal.fields:
        body["fields"] = refusal.fields
    return body


def not_found(message, code="not_found"):
    return CapabilityError(404, code, message)


def bad_request(message, code="invalid_request", fields=None):
    return CapabilityError(400, code, message, fields)


def not_implemented(capability):
    return CapabilityError(501, "not_implemented", f"{capability} is not available on this site.")
