"""PactSpec skill invocation and generated test suites (the convention is in documents/pactspec.py).

POST endpoint.url                      {"skill": "<skill id>", "input": {…}}
POST endpoint.url/<skill id>           {…the input…}
GET  endpoint.url/<skill id>/tests.json   the skill's http-roundtrip test suite
"""
from django.views.decorators.csrf import csrf_exempt

from agents_protocol.core.config import current_config
from agents_protocol.core.errors import CapabilityError, bad_request, not_found
from agents_protocol.core.examples import capture_examples
from agents_protocol.documents.pactspec import build_test_suite, skill_ids
from agents_protocol.http.body import parse_json_body, read_body
from agents_protocol.http.cors import preflight_response
from agents_protocol.http.documents import request_origin
from agents_protocol.http.invocation import invoke_for_request
from agents_protocol.http.json_http import (
    envelope_error,
    internal_error,
    json_response,
    method_not_allowed,
    over_limit,
    with_rate_limit_headers,
)


def _endpoint(method):
    """Preflight, method check, and CapabilityError → envelope for one endpoint view."""
    def decorate(view):
        @csrf_exempt
        def wrapped(request, *args, **kwargs):
            if request.method == "OPTIONS":
                return preflight_response([method, "OPTIONS"])
            if request.method != method:
                return method_not_allowed([method])
            try:
                response = view(request, *args, **kwargs)
            except CapabilityError as error:
                response = envelope_error(over_limit(request) or error)
            except Exception as error:
                response = internal_error(f"PactSpec {request.path}", error)
            return with_rate_limit_headers(request, response)
        return wrapped
    return decorate


@_endpoint("POST")
def dispatch(request):
    body = parse_json_body(request, read_body(request))
    config = current_config()
    skill_id = body.get("skill")
    capability = _capability(config, skill_id)
    if capability is None:
        raise bad_request(f"No skill {skill_id!r}; see the skills of /.well-known/pactspec.json.", "unknown_skill",
                          fields={"skill": "Must be the id of a skill in /.well-known/pactspec.json."})
    return _invoke(request, config, capability, body.get("input", {}))


@_endpoint("POST")
def invoke_skill(request, skill_id):
    body = read_body(request)
    config = current_config()
    capability = _known_capability(config, skill_id)
    return _invoke(request, config, capability, parse_json_body(request, body))


@_endpoint("GET")
def test_suite(request, skill_id):
    config = current_config()
    capability = _known_capability(config, skill_id)
    example = capture_examples(config, request_origin(request)).get(capability.name)
    return json_response(build_test_suite(capability, skill_id, example))


def _invoke(request, config, capability, skill_input):
    if not isinstance(skill_input, dict):
        raise bad_request("The skill input must be a JSON object of parameters.", "invalid_params",
                          fields={"input": "Must be a JSON object."})
    return json_response(invoke_for_request(request, config, capability, skill_input, request_origin(request)))


def _capability(config, skill_id):
    names = {skill: name for name, skill in skill_ids(config).items()}
    name = names.get(skill_id) if isinstance(skill_id, str) else None
    return next((c for c in config.enabled_capabilities if c.name == name), None)


def _known_capability(config, skill_id):
    capability = _capability(config, skill_id)
    if capability is None:
        raise not_found(f"No skill {skill_id!r} here; see /.well-known/pactspec.json.")
    return capability
