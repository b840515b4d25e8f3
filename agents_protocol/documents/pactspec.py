"""/.well-known/pactspec.json (PactSpec v1, seed 003) and the test suite of each skill.

One skill per enabled capability. Invocation convention (PactSpec leaves it open):
`POST endpoint.url` with `{"skill": "<skill id>", "input": {…}}`, or `POST
endpoint.url/<skill id>` with the input object itself. Success answers 200 with the
skill's output (the capability's `data`); a refusal answers the protocol's error
envelope with its status. Each skill's `testSuite` is an `http-roundtrip` suite at
`endpoint.url/<skill id>/tests.json`, addressed to the dispatcher as the PactSpec CLI does.
"""
from urllib.parse import urlsplit

from agents_protocol.documents.interop import (
    LLMS_TXT_PATH,
    OPENAPI_PATH,
    PACTSPEC_INVOKE_PATH,
    document_version,
    is_email,
    site_base,
    skill_description,
    skill_tags,
    skill_title,
    slug,
)
from agents_protocol.documents.schemas import ERROR, input_schema, output_schema

SPEC_VERSION = "1.0.0"
FREE = {"model": "free", "amount": 0, "currency": "USD", "protocol": "none"}
TEST_TIMEOUT_MS = 10000


def skill_ids(config):
    """{capability name: skill id}: cart.add → cart-add; a clash gets -2, -3 … in config order."""
    ids = {}
    for capability in config.enabled_capabilities:
        base = slug(capability.name, "skill")
        candidate, n = base, 1
        while candidate in ids.values():
            n += 1
            candidate = f"{base}-{n}"
        ids[capability.name] = candidate
    return ids


def build_pactspec(config, origin, examples):
    base = site_base(config, origin)
    ids = skill_ids(config)
    return {
        "specVersion": SPEC_VERSION,
        "id": f"urn:pactspec:{slug(urlsplit(base).netloc, 'site')}:{slug(config.site.name, 'shop')}",
        "name": config.site.name[:100],
        "version": document_version(config),
        "description": _description(config)[:500],
        "provider": _provider(config, base),
        "endpoint": {"url": f"{base}{PACTSPEC_INVOKE_PATH}", "auth": {"type": "bearer"}},
        "skills": [
            _skill(c, ids[c.name], base, examples.get(c.name)) for c in config.enabled_capabilities
        ],
        "tags": ["agents-protocol"],
        "links": {"documentation": config.site.docs_url or f"{base}{LLMS_TXT_PATH}"},
        "interop": {"openapi": {"specUrl": f"{base}{OPENAPI_PATH}"}},
    }


def _description(config):
    intro = f"{config.site.description.rstrip('.')}. " if config.site.description else ""
    return (
        f"{intro}Skills that need a session take `Authorization: Bearer <session_token>` from "
        f"POST {config.session.create_endpoint}."
    )


def _provider(config, base):
    provider = {"name": config.site.name, "url": base}
    if is_email(config.site.contact):
        provider["contact"] = config.site.contact
    return provider


def _skill(capability, skill_id, base, example):
    skill = {
        "id": skill_id,
        "name": skill_title(capability),
        "description": skill_description(capability),
        "tags": skill_tags(capability),
        "inputSchema": input_schema(capability),
        "outputSchema": output_schema(capability),
    }
    if example:
        skill["examples"] = [{
            "description": "Captured from a real call on this site",
            "input": example["input"],
            "expectedOutput": example["output"],
        }]
    skill["pricing"] = FREE
    skill["testSuite"] = {"url": f"{base}{PACTSPEC_INVOKE_PATH}/{skill_id}/tests.json", "type": "http-roundtrip"}
    return skill


def build_test_suite(capability, skill_id, example):
    """A happy path when one can run without state, then the refusals every caller can reproduce."""
    tests = []
    if example and not capability.requires_session:
        tests.append(_test(f"{skill_id}-happy-path", "A captured example answers 200 with the declared output",
                           skill_id, example["input"], 200, output_schema(capability)))
    if capability.requires_session:
        tests.append(_test(f"{skill_id}-needs-session", "Without a session token the skill answers 401",
                           skill_id, {}, 401, ERROR))
    tests.append(_bad_request(capability, skill_id))
    return {"version": "1.0", "skill": skill_id, "tests": tests}


def _bad_request(capability, skill_id):
    if any(p.required for p in capability.params) and not capability.requires_session:
        return _test(f"{skill_id}-missing-parameter", "Missing required parameters answer 400",
                     skill_id, {}, 400, ERROR)
    return _test(f"{skill_id}-input-not-an-object", "An input that is not a JSON object answers 400",
                 skill_id, "not an object", 400, ERROR)


def _test(test_id, description, skill_id, skill_input, status, schema):
    return {
        "id": test_id,
        "description": description,
        "request": {"method": "POST", "body": {"skill": skill_id, "input": skill_input}},
        "expect": {"status": status, "outputSchema": schema},
        "timeoutMs": TEST_TIMEOUT_MS,
    }
