"""The inspector's three answers, each found by the secret in its URL (never the session token):

    GET INSPECTOR_PATH<secret>            the page (template and static JS of this app)
    GET INSPECTOR_PATH<secret>/state      its data as JSON, polled by the page (?after=<seq>: newer calls only)
    GET INSPECTOR_PATH<secret>/artifact   the sealed, signed artifact as a file, once the session ended

An unknown secret (or a session pruned since) is a 404 like any missing page; the JSON answers
are the API's envelope. Nothing here counts against the session's rate limit.
"""
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from agents_protocol.audit.chain import sealed_artifact
from agents_protocol.core import codec
from agents_protocol.core.config import current_config
from agents_protocol.core.errors import CapabilityError, bad_request, envelope_of
from agents_protocol.documents.interop import AGENTS_JSON_PATH
from agents_protocol.http.client import request_origin
from agents_protocol.http.exceptions import method_not_allowed, refusal_for
from agents_protocol.inspector.state import (
    inspected_session,
    seconds_until_expiry,
    session_state,
)

POLL_MILLISECONDS = 1000
# The site's own policy may be looser; this page needs nothing but its own script, style and JSON.
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                           "img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
                           "frame-ancestors 'none'")
PRIVATE_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex"}


@require_safe
def page(request, secret):
    session = inspected_session(secret)
    if session is None:
        raise Http404("No such page.")
    response = render(request, "agents_protocol/inspector.html", {
        "session": session,
        "state_url": f"{request.path}/state",
        "artifact_url": f"{request.path}/artifact",
        "agents_json_url": AGENTS_JSON_PATH,
        "poll_milliseconds": POLL_MILLISECONDS,
    })
    return private(response, **{"Content-Security-Policy": CONTENT_SECURITY_POLICY})


@csrf_exempt  # a POST is answered 405 in the envelope, not with the CSRF failure page
def state(request, secret):
    try:
        session = json_session(request, secret)
        after = after_seq(request.GET.get("after", "0"))
        data = session_state(request, session, current_config(), request_origin(request), after)
    except Exception as error:  # the page reads JSON: a database outage is the API's 503 envelope too
        return refused(refusal_for(error))
    return private(HttpResponse(codec.encode({"ok": True, "data": data}), content_type=codec.JSON_CONTENT_TYPE))


@csrf_exempt
def artifact(request, secret):
    try:
        session = json_session(request, secret)
        body = sealed_body(session)
    except Exception as error:
        return refused(refusal_for(error))
    response = HttpResponse(codec.encode_document(body), content_type=codec.JSON_CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{session.public_id}.audit.json"'
    return private(response)


def json_session(request, secret):
    if request.method not in ("GET", "HEAD"):
        raise method_not_allowed(["GET"])
    session = inspected_session(secret)
    if session is None:
        raise unknown_session()
    return session


def after_seq(text):
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise bad_request("after must be the seq of the last call you have, a whole number (0 for all).",
                          "invalid_params", fields={"after": "Must be a whole number of at least 0."})
    return int(text)


def sealed_body(session):
    if session.ended_at is None:
        raise CapabilityError(425, "session_live", "The trail is sealed when the session ends; poll the state "
                              "until session.live is false.", headers={"Retry-After": str(seconds_until_expiry(session))})
    body = sealed_artifact(session)
    if body is None:
        raise unknown_session("This session was not audited, so it has no signed trail.")
    return body


def unknown_session(message="No session has this inspector secret."):
    return CapabilityError(404, "unknown_session", message)


def refused(refusal):
    response = HttpResponse(codec.encode(envelope_of(refusal)), status=refusal.status,
                            content_type=codec.JSON_CONTENT_TYPE)
    for name, value in refusal.headers.items():
        response[name] = value
    return private(response)


def private(response, **headers):
    for name, value in {**PRIVATE_HEADERS, **headers}.items():
        response[name] = value
    return response
