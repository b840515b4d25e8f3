"""The protocol's response envelope and its JSON encoding.

`{"ok": true, "data": …}` or `{"ok": false, "error": "<sentence>", "code": "<machine_code>",
"fields"?: {name: problem}}`. Money travels as Decimal and is written as a JSON number
with its two decimals (56.00), which the standard library cannot do; simplejson can.
"""
from dataclasses import dataclass, field

import simplejson
from django.http import HttpResponse


def encode(body):
    return simplejson.dumps(
        body, use_decimal=True, allow_nan=False, ensure_ascii=False, separators=(",", ":")
    ).encode()


@dataclass
class Envelope:
    """One answer before it is written: the envelope `body`, its status and extra headers."""

    body: dict
    status: int = 200
    headers: dict = field(default_factory=dict)

    @property
    def code(self):
        return self.body.get("code")

    def response(self):
        """The HTTP response; raises what encoding raises for data JSON cannot carry."""
        response = HttpResponse(encode(self.body), status=self.status, content_type="application/json")
        for name, value in self.headers.items():
            response[name] = value
        return response


def success(data, status=200, headers=None):
    return Envelope({"ok": True, "data": data}, status, dict(headers or {}))


def failure(status, code, message, fields=None, headers=None):
    body = {"ok": False, "error": message, "code": code}
    if fields:
        body["fields"] = fields
    return Envelope(body, status, dict(headers or {}))
