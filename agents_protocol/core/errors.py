"""The one error type of the agent API. Handlers and shop providers raise it; the API
turns it into the envelope `{"ok": false, "error", "code", "fields"?}` with its status."""
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404

# What Django code raises for something missing (get_object_or_404, Model.objects.get): a 404.
MISSING = (Http404, ObjectDoesNotExist)


class CapabilityError(Exception):
    def __init__(self, status, code, message, fields=None, headers=None):
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
