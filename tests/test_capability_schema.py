"""One capability schema: every rule on a parameter is declared once, in the configuration,
and the API enforces exactly what the documents publish.

The bounds each test probes are read from the published OpenAPI document, never written
here: a value just inside each bound is not refused for that parameter, one just outside is
400 `invalid_params` naming it. A bound changed in admin, or through the models, changes the
next request and every document, in every gunicorn worker.
"""
import importlib
import json
import re
import subprocess
import time
from urllib.parse import quote

import pytest
import requests
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from jsonschema import Draft202012Validator

from agents_protocol.config_io import ConfigFileError, export_config, import_config
from agents_protocol.core.config import ParamSpec, current_revision
from agents_protocol.core.defaults import DEFAULT_CAPABILITIES, default_config
from agents_protocol.core.errors import CapabilityError
from agents_protocol.core.schema import ECMA_WHITESPACE, validate_params
from agents_protocol.models import Capability, CapabilityParam, ConfigRevision
from tests.api_client import API, AgentClient, assert_error, ok_data
from tests.bursts import burst
from tests.factories import make_product
from tests.servers import set_rate_limit, start_site

OPENAPI = "/.well-known/agents/openapi.json"
AGENTS_JSON = "/.well-known/agents.json"
PACTSPEC = "/.well-known/pactspec.json"
AGENT_CARD = "/.well-known/agent-card.json"
LLMS_TXT = "/llms.txt"
BOUNDS = ("minimum", "maximum", "minLength", "maxLength")
BOUNDED = sorted(
    (capability["name"], name)
    for capability in DEFAULT_CAPABILITIES
    for name, param in capability["params"].items()
    if {"minimum", "maximum", "min_length", "max_length", "format"} & set(param)
)
migration = importlib.import_module("agents_protocol.migrations.0009_default_param_rules")


# Values


def email_of_length(length):
    """A valid address (Django's validate_email) of exactly `length` characters, 7 to 321."""
    local = "a" * max(1, min(64, length - 6))
    domain_length = length - 1 - len(local)
    labels, left = [], domain_length - len(".com")
    while left > 0:
        size = min(63, left)
        if left - size == 1:  # a label after this one needs at least 1 character and a dot
            size -= 1
        labels.append("d" * size)
        left -= size + 1
    address = f"{local}@{'.'.join(labels)}.com"
    assert len(address) == length, (length, len(address))
    return address


def text_of_length(schema, length):
    """Text of `length` characters that also has the declared format: the shortest email address
    built here, a@d.com, has 7, so a lower length bound of an email is probed with 7."""
    if schema.get("format") == "email":
        return email_of_length(max(length, 7))
    return "x" * length


def inside_and_outside(schema, bound):
    """(a value just inside `bound`, one just outside) for a parameter's JSON Schema."""
    limit = schema[bound]
    if bound in ("minimum", "maximum"):
        step = 1 if schema["type"] == "integer" else 0.5
        return limit, limit - step if bound == "minimum" else limit + step
    if bound == "minLength":
        return text_of_length(schema, limit), "x" * (limit - 1)
    return text_of_length(schema, limit), text_of_length(schema, limit + 1)


# The published documents


def fetch(site, path):
    """A published document of `site` (an AgentClient), parsed if JSON."""
    response = site.get(path)
    assert response.status_code == 200, response.text
    return response.json() if path.endswith(".json") else response.text


def published_params(openapi):
    """{(capability name, parameter name): its JSON Schema}, from query, path and body alike."""
    found = {}
    for item in openapi["paths"].values():
        for operation in item.values():
            name = operation["operationId"]
            for parameter in operation.get("parameters", []):
                if parameter["in"] in ("query", "path"):
                    found[(name, parameter["name"])] = parameter["schema"]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            for param_name, schema in body.get("schema", {}).get("properties", {}).items():
                found[(name, param_name)] = schema
    return found


def declared(site, capability_name):
    return next(c for c in fetch(site, AGENTS_JSON)["capabilities"] if c["name"] == capability_name)


# Calling a capability as agents.json declares it


@pytest.fixture
def site(site_client):
    """The site in process, as an agent without a session sees it."""
    return AgentClient(django_client=site_client)


@pytest.fixture
def product(db):
    return make_product(public_id="speckled-mug", name="Speckled Mug", stock=50)


def valid_values(product):
    return {"q": "mug", "id": product.public_id, "item_id": product.public_id, "quantity": 1,
            "name": "Ada", "email": "ada@example.com", "message": "Hello"}


def call(site, capability, params, token=None):
    """Call a capability from its agents.json entry: `:name` segments from `params` (an empty
    one through the query string, which the trailing segment also accepts)."""
    params = dict(params)
    segments = []
    for segment in capability["endpoint"].split("/"):
        if segment.startswith(":"):
            value = params.pop(segment[1:])
            if value == "":
                params[segment[1:]] = value
                continue
            segment = quote(str(value), safe="")
        segments.append(segment)
    client = AgentClient(site.base_url, token if capability["requires_session"] else None, site.django_client)
    return client.request(capability["method"], "/".join(segments), params)


def refused_for(response, name):
    """The sentence the API refused `name` with, or None when it did not refuse it."""
    if response.status_code != 400 or not response.headers.get("Content-Type", "").startswith("application/json"):
        return None
    body = response.json()
    if body.get("code") != "invalid_params":
        return None
    return body["fields"].get(name)


def probe(site, capability, name, value, base, token):
    return call(site, capability, {**base, name: value}, token)


def required_base(capability, values):
    return {name: values[name] for name, param in capability.get("params", {}).items() if param["required"]}


# Every published bound, just inside and just outside


def test_every_bounded_parameter_of_the_defaults_is_published_with_its_bounds(site):
    published = published_params(fetch(site, OPENAPI))
    with_bounds = sorted(key for key, schema in published.items()
                         if key[0] in {c["name"] for c in DEFAULT_CAPABILITIES}
                         and ({*BOUNDS, "format"} & set(schema)))
    assert with_bounds == BOUNDED


@pytest.mark.parametrize("capability_name, name", BOUNDED, ids=[f"{c}.{p}" for c, p in BOUNDED])
def test_just_inside_each_published_bound_is_accepted_and_just_outside_is_refused(
        site, product, capability_name, name):
    schema = published_params(fetch(site, OPENAPI))[(capability_name, name)]
    capability = declared(site, capability_name)
    token = None
    if capability["requires_session"]:
        token = AgentClient(django_client=site.django_client).start_session()["session_token"]
    base = required_base(capability, valid_values(product))
    bounds = [bound for bound in BOUNDS if bound in schema]
    assert bounds or schema.get("format")

    for bound in bounds:
        inside, outside = inside_and_outside(schema, bound)
        accepted = probe(site, capability, name, inside, base, token)
        # Accepted by validation: the shop may still refuse it (a quantity above the cart's maximum
        # is a 409, an item id of 200 characters a 404), but never fail on it.
        assert accepted.status_code < 500 and accepted.headers["Content-Type"].startswith("application/json")
        assert refused_for(accepted, name) is None, (bound, schema[bound], accepted.text)
        refused = probe(site, capability, name, outside, base, token)
        body = assert_error(refused, 400, "invalid_params")
        assert name in body["fields"], (bound, schema[bound], body)
        # agents.json has no keys for bounds: its description states each one.
        assert str(schema[bound]) in capability["params"][name]["description"]

    if schema.get("type") == "string" and "minLength" in schema:
        blank_text = " " * max(schema["minLength"], 1)
        blank = probe(site, capability, name, blank_text, base, token)
        assert name in assert_error(blank, 400, "invalid_params")["fields"], "whitespace is trimmed first"
        # and the published schema says so, so that a client validating against it refuses it too
        published = Draft202012Validator(schema)
        assert not published.is_valid(blank_text) and published.is_valid("a" * max(schema["minLength"], 1))
        if schema["minLength"] >= 2:  # long enough as sent, one character short once trimmed
            padded = " " + "a" * (schema["minLength"] - 1) + " "
            assert name in assert_error(probe(site, capability, name, padded, base, token), 400,
                                        "invalid_params")["fields"]
            assert not published.is_valid(padded)
    if schema.get("format") == "email":
        wrong = probe(site, capability, name, "not-an-email", base, token)
        assert assert_error(wrong, 400, "invalid_params")["fields"][name] == "Must be a valid email address."
        assert "an email address" in capability["params"][name]["description"]


ECMA_REGEX_PROBE = """
const pattern = new RegExp(process.argv[1], "u"), spaces = [];
for (let point = 0; point < 0x110000; point++) if (/^\\s$/u.test(String.fromCodePoint(point))) spaces.push(point);
console.log(JSON.stringify({spaces, accepts: JSON.parse(process.argv[2]).map(text => pattern.test(text))}));
"""


def test_whitespace_is_trimmed_as_the_published_pattern_reads_it(site):
    """The pattern published for trimmed text is ECMA-262's, as JSON Schema says: the server
    trims exactly what its `\\s` matches (asked of Node), not what Python's str.strip() takes."""
    pattern = published_params(fetch(site, OPENAPI))[("search", "q")]["pattern"]
    # U+FEFF is whitespace to ECMA-262 and not to Python; U+001C and U+0085 the other way round.
    texts = ["\ufeff", "\x1c", "\x85", "\u3000"]
    ran = subprocess.run(["node", "-e", ECMA_REGEX_PROBE, pattern, json.dumps(texts)],
                         capture_output=True, text=True, timeout=60, check=True)
    ecma = json.loads(ran.stdout)
    assert set(map(chr, ecma["spaces"])) == set(ECMA_WHITESPACE)
    agent = AgentClient(django_client=site.django_client)
    for text, published_accepts in zip(texts, ecma["accepts"]):
        answer = agent.get(f"{API}/search", {"q": text})
        assert (answer.status_code == 200) is published_accepts, (hex(ord(text)), answer.text)
        if not published_accepts:
            assert "q" in assert_error(answer, 400, "invalid_params")["fields"]
    assert ecma["accepts"] == [False, True, True, False]


def test_the_sentences_name_the_bounds(site):
    agent = AgentClient(django_client=site.django_client)
    body = assert_error(agent.get(f"{API}/search", {"q": "x" * 201, "page": 0, "limit": 101}), 400, "invalid_params")
    assert body["fields"] == {
        "q": "Must be text of 1 to 200 characters.",
        "page": "Must be an integer from 1 to 10000.",
        "limit": "Must be an integer from 1 to 100.",
    }
    # A value of another type is told the same sentence, as query text or as JSON
    not_numbers = assert_error(agent.get(f"{API}/search", {"q": "mug", "page": "two", "limit": "1.5"}), 400,
                               "invalid_params")
    assert not_numbers["fields"] == {"page": "Must be an integer from 1 to 10000.",
                                     "limit": "Must be an integer from 1 to 100."}
    agent.start_session()
    order = assert_error(agent.get(f"{API}/order/status", {"order_id": "x" * 101}), 400, "invalid_params")
    assert order["fields"] == {"order_id": "Must be at most 100 characters."}


def test_trimmed_text_is_what_the_handler_gets_and_defaults_come_from_the_schema(site, product):
    found = ok_data(AgentClient(django_client=site.django_client).get(f"{API}/search", {"q": "  speckled  "}))
    assert [r["id"] for r in found["results"]] == [product.public_id]
    assert (found["page"], found["limit"]) == (1, 20)


# A bound changed in admin or through the models


def admin_form(capability):
    """The capability's admin change form as the browser would post it, parameters inline."""
    data = {field: getattr(capability, field) for field in ("name", "description", "endpoint", "method", "position")}
    data.update({field: "on" for field in ("requires_session", "human_handoff", "enabled") if getattr(capability, field)})
    params = list(capability.params.all())
    data.update({"params-TOTAL_FORMS": str(len(params)), "params-INITIAL_FORMS": str(len(params)),
                 "params-MIN_NUM_FORMS": "0", "params-MAX_NUM_FORMS": "1000"})
    for index, param in enumerate(params):
        fields = {"id": param.pk, "capability": capability.pk, "position": param.position, "name": param.name,
                  "type": param.type, "description": param.description, "format": param.format}
        for field in ("default", "enum", "items"):
            value = getattr(param, field)
            fields[field] = "" if value is None else json.dumps(value)
        for field in ("minimum", "maximum", "min_length", "max_length"):
            value = getattr(param, field)
            fields[field] = "" if value is None else value
        if param.required:
            fields["required"] = "on"
        data.update({f"params-{index}-{key}": value for key, value in fields.items()})
    return data


def param_index(capability, name):
    return [p.name for p in capability.params.all()].index(name)


def documents(site):
    return {path: fetch(site, path) for path in (AGENTS_JSON, OPENAPI, PACTSPEC, AGENT_CARD, LLMS_TXT)}


def assert_documents_say(docs, capability_name, name, json_schema, phrase, a2a_rules):
    declared_param = next(c for c in docs[AGENTS_JSON]["capabilities"] if c["name"] == capability_name)["params"][name]
    assert declared_param["description"].endswith(f"({phrase})")
    published = published_params(docs[OPENAPI])[(capability_name, name)]
    assert {key: published.get(key) for key in json_schema} == json_schema
    skill = next(s for s in docs[PACTSPEC]["skills"] if s["id"] == capability_name.replace(".", "-"))
    assert {key: skill["inputSchema"]["properties"][name].get(key) for key in json_schema} == json_schema
    card_skill = next(s for s in docs[AGENT_CARD]["skills"] if s["id"] == capability_name)
    assert f"{name} ({a2a_rules})" in card_skill["description"]
    assert f"`{name}`{'' if declared_param['required'] else '?'} ({phrase})" in docs[LLMS_TXT]


def test_a_bound_changed_in_admin_applies_to_the_next_request_and_every_document(site, admin_client):
    agent = AgentClient(django_client=site.django_client)
    ok_data(agent.get(f"{API}/search", {"q": "mug", "limit": 80}))
    search = Capability.objects.get(name="search")
    form = admin_form(search)
    form[f"params-{param_index(search, 'limit')}-maximum"] = "50"
    form[f"params-{param_index(search, 'q')}-max_length"] = "10"

    response = admin_client.post(f"/admin/agents_protocol/capability/{search.pk}/change/", form)
    assert response.status_code == 302, response.content[:3000]

    body = assert_error(agent.get(f"{API}/search", {"q": "mug", "limit": 51}), 400, "invalid_params")
    assert body["fields"] == {"limit": "Must be an integer from 1 to 50."}
    assert ok_data(agent.get(f"{API}/search", {"q": "mug", "limit": 50}))["limit"] == 50
    assert "q" in assert_error(agent.get(f"{API}/search", {"q": "x" * 11}), 400, "invalid_params")["fields"]
    ok_data(agent.get(f"{API}/search", {"q": "x" * 10}))
    docs = documents(site)
    assert_documents_say(docs, "search", "limit", {"minimum": 1, "maximum": 50}, "1 to 50",
                         "integer, default 20, 1 to 50")
    assert_documents_say(docs, "search", "q", {"minLength": 1, "maxLength": 10}, "1 to 10 characters",
                         "string, required, 1 to 10 characters")


def test_admin_refuses_rules_that_contradict_each_other(admin_client):
    search = Capability.objects.get(name="search")
    form = admin_form(search)
    limit = param_index(search, "limit")
    form[f"params-{limit}-minimum"] = "30"  # above the default, 20
    form[f"params-{limit}-max_length"] = "5"
    before = (export_config(), current_revision())

    response = admin_client.post(f"/admin/agents_protocol/capability/{search.pk}/change/", form)

    assert response.status_code == 200
    errors = " ".join(str(e) for formset in response.context["inline_admin_formsets"]
                      for form_errors in formset.formset.errors for e in form_errors.values())
    assert "Maximum length only applies to parameters of type string." in errors
    assert (export_config(), current_revision()) == before


def test_a_bound_changed_through_the_models_applies_to_the_next_request_and_every_document(site):
    agent = AgentClient(django_client=site.django_client)
    contact = {"name": "Ada", "email": "ada@example.com"}
    ok_data(agent.post(f"{API}/contact", {**contact, "message": "x" * 101}))
    message = CapabilityParam.objects.get(capability__name="contact", name="message")
    message.max_length = 100
    message.full_clean()
    message.save()

    body = assert_error(agent.post(f"{API}/contact", {**contact, "message": "x" * 101}), 400, "invalid_params")
    assert body["fields"] == {"message": "Must be text of 1 to 100 characters."}
    ok_data(agent.post(f"{API}/contact", {**contact, "message": "x" * 100}))
    assert_documents_say(documents(site), "contact", "message", {"minLength": 1, "maxLength": 100},
                         "1 to 100 characters", "string, required, 1 to 100 characters")


# Declarations: the model, the config file


def param(**fields):
    return CapabilityParam(capability=Capability.objects.get(name="search"), name="extra", **fields)


@pytest.mark.django_db
@pytest.mark.parametrize("fields, field, sentence", [
    ({"type": "integer", "minimum": 5, "maximum": 4}, "maximum", "Maximum must not be below the minimum."),
    ({"type": "integer", "minimum": 1.5}, "minimum", "Minimum of an integer parameter must be a whole number."),
    ({"type": "string", "minimum": 1}, "minimum", "Minimum only applies to parameters of type integer or number."),
    ({"type": "integer", "max_length": 3}, "max_length", "Maximum length only applies to parameters of type string."),
    ({"type": "string", "min_length": 4, "max_length": 3}, "max_length",
     "Maximum length must not be below the minimum length."),
    ({"type": "integer", "format": "email"}, "format", "Format only applies to parameters of type string."),
    ({"type": "number", "maximum": float("inf")}, "maximum", "Maximum must be a finite number."),
    ({"type": "integer", "maximum": 100, "default": 101}, "default",
     "The default breaks this parameter's rules: Must be an integer of at most 100."),
    ({"type": "string", "format": "email", "enum": ["a@example.com", "nobody"]}, "enum",
     "The enum value 'nobody' breaks this parameter's rules: Must be a valid email address."),
    ({"type": "string", "max_length": 3, "default": "four"}, "default",
     "The default breaks this parameter's rules: Must be at most 3 characters."),
])
def test_a_declaration_that_contradicts_itself_is_refused(fields, field, sentence):
    with pytest.raises(Exception) as refused:
        param(**fields).full_clean()
    assert sentence in refused.value.message_dict[field]


@pytest.mark.django_db
def test_consistent_declarations_are_accepted():
    param(type="number", minimum=0, maximum=2.5, default=1.5).full_clean()
    param(type="string", min_length=3, max_length=320, format="email", default="ada@example.com").full_clean()
    param(type="string", format="date-time", enum=["2025-01-31T09:30:00Z"]).full_clean()


@pytest.mark.django_db
def test_export_carries_every_rule_and_import_validates_them():
    data = export_config()
    search = next(c for c in data["capabilities"] if c["name"] == "search")
    assert search["params"]["q"] == {"type": "string", "required": True, "description": "Search query",
                                     "min_length": 1, "max_length": 200}
    assert search["params"]["limit"]["minimum"] == 1 and search["params"]["limit"]["maximum"] == 100
    email = next(c for c in data["capabilities"] if c["name"] == "contact")["params"]["email"]
    assert (email["format"], email["min_length"], email["max_length"]) == ("email", 3, 320)

    search["params"]["limit"]["maximum"] = 40
    import_config(data)
    assert export_config() == data

    search["params"]["limit"]["min_length"] = 2
    with pytest.raises(ConfigFileError) as refused:
        import_config(data)
    assert any("params.limit: min_length: Minimum length only applies" in error for error in refused.value.errors)
    search["params"]["limit"].pop("min_length")
    search["params"]["limit"]["maximum"] = "many"
    with pytest.raises(ConfigFileError) as refused:
        import_config(data)
    assert any("maximum" in error for error in refused.value.errors)


@pytest.mark.django_db
def test_a_freshly_migrated_database_holds_the_default_configuration():
    assert export_config() == default_config()


def historical_apps():
    return MigrationLoader(connection).project_state(("agents_protocol", "0009_default_param_rules")).apps


@pytest.mark.django_db
def test_the_data_migration_gives_an_existing_install_the_rules_it_lacks():
    CapabilityParam.objects.update(minimum=None, maximum=None, min_length=None, max_length=None, format="")
    CapabilityParam.objects.filter(capability__name="search", name="q").update(
        description="Search query, 1 to 200 characters")
    CapabilityParam.objects.filter(capability__name="browse", name="limit").update(description="How many")
    CapabilityParam.objects.filter(capability__name="search", name="limit").update(default=500)
    revision = ConfigRevision.objects.get().number

    migration.add_rules(historical_apps(), None)

    q = CapabilityParam.objects.get(capability__name="search", name="q")
    assert (q.min_length, q.max_length, q.description) == (1, 200, "Search query")
    browse_limit = CapabilityParam.objects.get(capability__name="browse", name="limit")
    assert (browse_limit.minimum, browse_limit.maximum, browse_limit.description) == (1, 100, "How many")
    kept = CapabilityParam.objects.get(capability__name="search", name="limit")
    assert (kept.minimum, kept.maximum) == (None, None), "a default outside the bounds keeps the param as it was"
    email = CapabilityParam.objects.get(capability__name="contact", name="email")
    assert (email.min_length, email.max_length, email.format) == (3, 320, "email")
    assert ConfigRevision.objects.get().number == revision + 1


# The compiled rules, without HTTP


@pytest.mark.parametrize("spec, accepted, refused, sentence", [
    (ParamSpec("at", "string", format="date-time"), "2025-01-31T09:30:00+01:00", "2025-01-31 09:30",
     "Must be a date and time with an offset, such as 2025-01-31T09:30:00Z (RFC 3339)."),
    (ParamSpec("at", "string", format="date-time"), "2025-01-31t09:30:00.5z", "2025-02-30T09:30:00Z",
     "Must be a date and time with an offset, such as 2025-01-31T09:30:00Z (RFC 3339)."),
    (ParamSpec("link", "string", format="uri"), "urn:isbn:0451450523", "/relative/path",
     "Must be an absolute URI, such as https://example.com/page."),
    (ParamSpec("ratio", "number", minimum=0, maximum=0.5), 0.5, 0.51, "Must be a number from 0 to 0.5."),
    (ParamSpec("n", "integer", minimum=-3), -3, -4, "Must be an integer of at least -3."),
    (ParamSpec("code", "string", min_length=4, max_length=4), "abcd", "abcde", "Must be text of exactly 4 characters."),
    (ParamSpec("note", "string", min_length=2), "  ab  ", " a ", "Must be text of at least 2 characters."),
])
def test_compiled_rules(spec, accepted, refused, sentence):
    values = validate_params((spec,), {spec.name: accepted}, {}, {})
    assert values[spec.name] == (accepted.strip() if spec.min_length is not None else accepted)
    with pytest.raises(CapabilityError) as error:
        validate_params((spec,), {spec.name: refused}, {}, {})
    assert error.value.fields == {spec.name: sentence}


def test_a_snapshot_compiles_each_parameter_once():
    spec = ParamSpec("q", "string", min_length=1, max_length=5)
    assert spec.rules is spec.rules
    assert validate_params((spec,), {}, {"q": ["  ab "]}, {}) == {"q": "ab"}


# Every worker


@pytest.fixture
def workers_site(tmp_path):
    """Three gunicorn workers whose access log names the process that served each request."""
    log = tmp_path / "access.log"
    site = start_site(tmp_path / "data", workers=3, GUNICORN_CMD_ARGS=(
        f"--access-logfile {log} --access-logformat '%(p)s %(s)s %(q)s'"))
    set_rate_limit(site, 100000)
    site.access_log = log
    yield site
    site.stop()


def served_by(site, markers, timeout=10):
    """{marker: pid of the worker that served it}; gunicorn logs a request after answering it."""
    deadline = time.monotonic() + timeout
    while True:
        found = {}
        for line in site.access_log.read_text().splitlines():
            match = re.match(r"<(\d+)> \d+ .*marker=(\w+)", line)
            if match and match.group(2) in markers:
                found[match.group(2)] = match.group(1)
        if len(found) == len(markers) or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def until_every_worker_answered(site, limit, expected_status, workers=3, rounds=20):
    """Parallel bursts of searches with `limit` until all workers served one; every answer is checked."""
    pids = set()
    for round_number in range(rounds):
        markers = [f"r{round_number}x{index}x{time.monotonic_ns()}" for index in range(9)]
        calls = [lambda m=m: requests.get(f"{site.url}{API}/search", timeout=30,
                                          params={"q": "mug", "limit": limit, "marker": m}) for m in markers]
        for response in burst(calls):
            assert response.status_code == expected_status, response.text
            if expected_status == 400:
                assert response.json()["fields"] == {"limit": "Must be an integer from 1 to 50."}
        pids |= set(served_by(site, set(markers)).values())
        if len(pids) == workers:
            return pids
    raise AssertionError(f"only {len(pids)} of {workers} workers answered")


def test_a_bound_changed_in_the_database_applies_in_every_worker_on_the_next_request(workers_site):
    before = until_every_worker_answered(workers_site, 100, 200)  # each worker has the snapshot with 100

    result = workers_site.manage("shell", "-c", (
        "from agents_protocol.models import CapabilityParam\n"
        "p = CapabilityParam.objects.get(capability__name='search', name='limit')\n"
        "p.maximum = 50\n"
        "p.full_clean()\n"
        "p.save()\n"
    ))
    assert result.returncode == 0, result.stderr

    after = until_every_worker_answered(workers_site, 100, 400)
    assert after == before
    limit = next(c for c in fetch(AgentClient(workers_site.url), AGENTS_JSON)["capabilities"] if c["name"] == "search")
    assert limit["params"]["limit"]["description"] == "Results per page (1 to 50)"
