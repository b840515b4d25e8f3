"""Parameter validation in process, against the configured descriptors of an `echo` capability.

`echo.get`, `echo.post` and `echo.delete` share one path and answer the validated
parameters, so each test sees exactly what a handler would receive.
"""
import pytest

from agents_protocol.core.capabilities import register, unregister
from agents_protocol.models import Capability, CapabilityParam
from tests.api_client import API, AgentClient, assert_error, ok_data

ECHO = f"{API}/echo"
ECHO_METHODS = ("GET", "POST", "DELETE")
ECHO_PARAMS = [
    {"name": "word", "type": "string", "required": True},
    {"name": "count", "type": "integer", "default": 3},
    {"name": "ratio", "type": "number"},
    {"name": "flag", "type": "boolean"},
    {"name": "color", "type": "string", "enum": ["red", "green"], "default": "red"},
    {"name": "tags", "type": "array", "items": {"type": "string", "maxLength": 5}},
    {"name": "meta", "type": "object"},
]


@pytest.fixture
def agent(site_client):
    for method in ECHO_METHODS:
        name = f"echo.{method.lower()}"
        register(name, lambda call: call.params)
        capability = Capability.objects.create(name=name, endpoint=ECHO, method=method, position=50)
        for position, param in enumerate(ECHO_PARAMS):
            CapabilityParam.objects.create(capability=capability, position=position, **param)
    yield AgentClient(django_client=site_client)
    for method in ECHO_METHODS:
        unregister(f"echo.{method.lower()}")


def test_get_converts_query_text_to_the_declared_types_and_applies_defaults(agent):
    echoed = ok_data(agent.get(f"{ECHO}?word=hi&ratio=1.5&flag=true&tags=ab&tags=cd&unknown=1"))
    assert echoed == {"word": "hi", "count": 3, "ratio": 1.5, "flag": True, "color": "red", "tags": ["ab", "cd"]}


def test_post_takes_typed_json_and_ignores_unknown_parameters(agent):
    params = {"word": "hi", "count": 7, "ratio": 2, "flag": False, "color": "green", "tags": ["a"],
              "meta": {"k": [1]}, "surprise": "ignored"}
    echoed = ok_data(agent.post(ECHO, params))
    assert echoed == {key: value for key, value in params.items() if key != "surprise"}


def test_post_ignores_the_query_string(agent):
    body = assert_error(agent.post(f"{ECHO}?word=hi", {}), 400, "invalid_params")
    assert body["fields"] == {"word": "This parameter is required."}


def test_delete_reads_the_json_body_and_the_query_string(agent):
    assert ok_data(agent.delete(ECHO, {"word": "body", "count": 1}))["count"] == 1
    assert ok_data(agent.delete(f"{ECHO}?word=query&count=2"))["count"] == 2
    assert ok_data(agent.delete(f"{ECHO}?word=query", {"word": "body"}))["word"] == "body"


@pytest.mark.parametrize("query, field, problem", [
    ("", "word", "This parameter is required."),
    ("word=hi&count=x", "count", "Must be an integer."),
    ("word=hi&count=1.0", "count", "Must be an integer."),
    ("word=hi&count=1&count=2", "count", "Send this parameter once."),
    ("word=hi&ratio=nan", "ratio", "Must be a finite number."),
    ("word=hi&ratio=abc", "ratio", "Must be a number."),
    ("word=hi&flag=maybe", "flag", "Must be true or false."),
    ("word=hi&color=blue", "color", "Must be one of: red, green."),
    ("word=hi&tags=ok&tags=toolong", "tags", "Item 1 does not match the declared item schema."),
    ("word=hi&meta=x", "meta", "An object cannot be sent in a query string; send a JSON body."),
])
def test_get_refuses_each_invalid_value_with_a_field_message(agent, query, field, problem):
    body = assert_error(agent.get(f"{ECHO}?{query}"), 400, "invalid_params")
    assert body["fields"] == {field: problem}
    assert field in body["error"]


@pytest.mark.parametrize("field, value, problem", [
    ("word", 5, "Must be text."),
    ("count", "7", "Must be an integer."),
    ("count", 1.5, "Must be an integer."),
    ("count", True, "Must be an integer."),
    ("ratio", "1.5", "Must be a number."),
    ("flag", 1, "Must be true or false."),
    ("color", "RED", "Must be one of: red, green."),
    ("tags", "a", "Must be an array."),
    ("tags", [1], "Item 0 does not match the declared item schema."),
    ("meta", [], "Must be an object."),
])
def test_json_values_must_already_have_the_declared_type(agent, field, value, problem):
    body = assert_error(agent.post(ECHO, {"word": "hi", field: value}), 400, "invalid_params")
    assert body["fields"] == {field: problem}


def test_a_whole_number_written_with_a_fraction_is_an_integer_as_json_schema_says(agent):
    echoed = ok_data(agent.post(ECHO, {"word": "hi", "count": 2.0}))
    assert echoed["count"] == 2 and isinstance(echoed["count"], int)
    assert_error(agent.post(ECHO, {"word": "hi", "count": 2.5}), 400, "invalid_params")


def test_every_invalid_parameter_is_reported_at_once(agent):
    body = assert_error(agent.post(ECHO, {"count": "x", "color": "blue"}), 400, "invalid_params")
    assert set(body["fields"]) == {"word", "count", "color"}


@pytest.mark.parametrize("params", [
    {"word": "hi", "count": 10**30},
    {"word": "hi", "count": -(10**30)},
    {"word": "hi", "ratio": 1e300},
])
def test_enormous_numbers_in_json_are_400(agent, params):
    (field,) = set(params) - {"word"}
    assert field in assert_error(agent.post(ECHO, params), 400, "invalid_params")["fields"]


def test_enormous_integers_in_a_query_string_are_400(agent):
    body = assert_error(agent.get(f"{ECHO}?word=hi&count={10**30}"), 400, "invalid_params")
    assert body["fields"] == {"count": "Must be an integer."}


def test_infinite_numbers_written_as_overflowing_literals_are_400(agent):
    response = agent.post(ECHO, data='{"word": "hi", "ratio": 1e400}', headers={"Content-Type": "application/json"})
    assert "ratio" in assert_error(response, 400, "invalid_params")["fields"]


@pytest.mark.parametrize("params", [
    {"word": "a\x00b"},
    {"word": "hi", "tags": ["\x00"]},
    {"word": "hi", "meta": {"key\x00": 1}},
])
def test_nul_characters_in_json_strings_are_400(agent, params):
    body = assert_error(agent.post(ECHO, params), 400, "invalid_params")
    assert "Must not contain NUL characters." in body["fields"].values()


def test_nul_characters_in_a_query_string_are_400(agent):
    body = assert_error(agent.get(f"{ECHO}?word=a%00b"), 400, "invalid_params")
    assert body["fields"] == {"word": "Must not contain NUL characters."}


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_a_body_that_is_not_json_is_415(agent, content_type):
    response = agent.post(ECHO, data="word=hi", headers={"Content-Type": content_type})
    assert_error(response, 415, "unsupported_media_type")


@pytest.mark.parametrize("body", ['{"word": "hi"', "[1, 2]", '"hi"', '{"word": NaN}', "\xff\xfe"])
def test_malformed_json_or_a_body_that_is_not_an_object_is_400(agent, body):
    response = agent.post(ECHO, data=body.encode("latin-1"), headers={"Content-Type": "application/json"})
    assert_error(response, 400, "invalid_json")


def nested_object(depth):
    return '{"a":' * depth + "1" + "}" * depth


def test_bodies_nested_deeper_than_32_levels_are_400_at_any_depth(agent):
    for depth in (32, 500, 990):
        body = f'{{"word": "hi", "meta": {nested_object(depth)}}}'
        response = agent.post(ECHO, data=body, headers={"Content-Type": "application/json"})
        assert_error(response, 400, "invalid_json")
    fits = f'{{"word": "hi", "meta": {nested_object(31)}}}'
    assert ok_data(agent.post(ECHO, data=fits, headers={"Content-Type": "application/json"}))["meta"]["a"]


def test_a_json_content_type_with_a_charset_or_a_suffix_is_accepted(agent):
    for content_type in ("application/json; charset=utf-8", "Application/JSON", "application/vnd.agents+json"):
        response = agent.post(ECHO, data='{"word": "hi"}', headers={"Content-Type": content_type})
        assert ok_data(response)["word"] == "hi"


def test_an_empty_body_means_no_parameters(agent):
    body = assert_error(agent.post(ECHO, data=b"", headers={"Content-Type": "text/plain"}), 400, "invalid_params")
    assert body["fields"] == {"word": "This parameter is required."}


def test_a_body_over_64_kib_is_413(agent):
    padding = "x" * (64 * 1024)
    assert_error(agent.post(ECHO, {"word": "hi", "padding": padding}), 413, "payload_too_large")
    assert ok_data(agent.post(ECHO, {"word": "hi", "padding": padding[:60_000]}))["word"] == "hi"


def test_the_body_limit_follows_the_setting(agent, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "MAX_BODY_BYTES": 100}
    assert ok_data(agent.post(ECHO, {"word": "x" * 80}))["word"] == "x" * 80
    body = assert_error(agent.post(ECHO, {"word": "x" * 90}), 413, "payload_too_large")
    assert "100 bytes" in body["error"]


def test_a_body_limit_applies_to_session_creation_too(agent, settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "MAX_BODY_BYTES": 100}
    response = agent.http.post(f"{agent.base_url}{API}/session", json={"purpose": "x" * 200}, timeout=10)
    assert_error(response, 413, "payload_too_large")
