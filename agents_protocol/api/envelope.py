"""The protocol's response envelope and its JSON encoding.

`{"ok": true, "data": …}` or `{"ok": false, "error": "<sentence>", "code": "<machine_code>",
"fields"?: {name: problem}}`. Money travels as Decimal and is written as a JSON number
with its two decimals (56.00), which the standard library cannot do; simplejson can.
"""
import simplejson
from rest_framework.renderers import BaseRenderer
from rest_framework.response import Response


class EnvelopeRenderer(BaseRenderer):
    media_type = "application/json"
    format = "json"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        return simplejson.dumps(
            data, use_decimal=True, allow_nan=False, ensure_ascii=False, separators=(",", ":")
        ).encode()


def success(data, status=200, headers=None):
    return Response({"ok": True, "data": data}, status=status, headers=headers)


def failure(status, code, message, fields=None, headers=None):
    body = {"ok": False, "error": message, "code": code}
    if fields:
        body["fields"] = fields
    return Response(body, status=status, headers=headers)
