"""Configuration that would break the agent API or publish an invalid document is refused before it
is saved, in admin and by `agents_config import` alike: nothing is saved and the revision does not
move (the `unchanged` fixture)."""
import copy

import pytest

from agents_protocol.config_io import ConfigFileError, export_config, import_config
from agents_protocol.models import AuditConfig, Capability, SessionConfig
from tests.test_agents_admin import capability_form, field_errors, flow_form, unchanged  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

CAPABILITY_ADD = "/admin/agents_protocol/capability/add/"
SITE_PROFILE = "/admin/agents_protocol/siteprofile/1/change/"


@pytest.mark.parametrize("endpoint, problem", [
    ("/.well-known/agents/api/x/:id/:id", "Each :name may appear once"),
    ("/.well-known/agents/:anything", "a path the app serves itself"),
    ("/.well-known/:document", "a path the app serves itself"),
    ("/.well-known/agents/inspect/:secret", "a path the app serves itself"),
    ("/.well-known/agents/pactspec/reserve", "a path the app serves itself"),
    ("/.well-known/agents/a2a/reserve", "a path the app serves itself"),
    ("/.well-known/agents/mcp", "a path the app serves itself"),
])
def test_an_endpoint_the_router_cannot_build_or_that_takes_a_served_path_is_refused(
        admin_client, unchanged, endpoint, problem):
    errors = field_errors(admin_client.post(CAPABILITY_ADD, capability_form(endpoint=endpoint)))
    assert problem in errors, errors


@pytest.mark.parametrize("name", ["session.create", "session.delete", "session.end", "audit"])
def test_a_capability_named_like_the_session_and_audit_calls_is_refused(admin_client, unchanged, name):
    assert "names the session and audit endpoints" in field_errors(admin_client.post(CAPABILITY_ADD,
                                                                                    capability_form(name=name)))


@pytest.mark.parametrize("items, problem", [
    ('{"type": ["string", "null"]}', "must be one of: string, integer, number, boolean"),
    ('{"type": "object"}', "must be one of: string, integer, number, boolean"),
    ('{"type": "string", "pattern": "("}', "does not compile"),
    ('{"$ref": "#/definitions/nope"}', "no $ref"),
    ('{"items": {"$ref": "#"}}', "no $ref"),
    ('{"type": "number", "maximum": 1e999}', "must be finite"),
    ('{"type": "number", "enum": [NaN]}', "must be finite"),
])
def test_an_items_schema_the_validator_could_not_run_is_refused(admin_client, unchanged, items, problem):
    form = capability_form([{"name": "tags", "type": "array", "items": items}])
    errors = field_errors(admin_client.post(CAPABILITY_ADD, form))
    assert problem in errors, errors


@pytest.mark.parametrize("endpoint, params, problem", [
    ("/.well-known/agents/api/reserve/:item", [], "not one of this capability's parameters"),
    ("/.well-known/agents/api/reserve/:item", [{"name": "sku"}], "not one of this capability's parameters"),
    ("/.well-known/agents/api/reserve/:item", [{"name": "item", "type": "object"}], "one segment of text"),
])
def test_a_path_name_no_parameter_of_a_scalar_type_can_fill_is_refused(admin_client, unchanged, endpoint, params,
                                                                       problem):
    form = capability_form(params, endpoint=endpoint)
    assert problem in field_errors(admin_client.post(CAPABILITY_ADD, form))


def test_a_path_name_with_its_parameter_is_accepted(admin_client):
    form = capability_form([{"name": "item"}], endpoint="/.well-known/agents/api/reserve/:item")
    assert admin_client.post(CAPABILITY_ADD, form).status_code == 302
    assert Capability.objects.get(name="reserve").params.get().name == "item"


def test_an_object_parameter_on_a_get_capability_is_refused(admin_client, unchanged):
    form = capability_form([{"name": "filter", "type": "object"}], method="GET")
    assert "cannot carry an object" in field_errors(admin_client.post(CAPABILITY_ADD, form))


def test_a_flow_without_steps_is_refused(admin_client, unchanged):
    errors = field_errors(admin_client.post("/admin/agents_protocol/flow/add/", flow_form([])))
    assert "at least 1" in errors, errors


def test_deleting_every_enabled_capability_is_refused(admin_client, unchanged):
    ids = [str(pk) for pk in Capability.objects.values_list("pk", flat=True)]
    response = admin_client.post("/admin/agents_protocol/capability/",
                                 {"action": "delete_selected", "_selected_action": ids, "post": "yes"})
    assert response.status_code == 200 and "agents.json needs at least one" in response.content.decode()
    assert Capability.objects.count() == len(ids)


def test_a_session_ttl_past_ten_years_is_refused(admin_client, unchanged):
    form = {"create_endpoint": "/.well-known/agents/api/session",
            "delete_endpoint": "/.well-known/agents/api/session", "ttl_seconds": str(10 ** 12)}
    errors = field_errors(admin_client.post("/admin/agents_protocol/sessionconfig/1/change/", form))
    assert "less than or equal to" in errors, errors
    assert SessionConfig.load().ttl_seconds == 1800


@pytest.mark.parametrize("url, field", [
    ("https://shop.example/store", "url"),
    ("https://shop.example?x=1", "url"),
    ("https://shop.example#top", "url"),
    ("ftp://shop.example", "url"),
    ("https://bücher.example", "url"),
])
def test_a_site_url_that_is_not_an_ascii_origin_is_refused(admin_client, unchanged, url, field):
    form = {"name": "Acme Ceramics", "url": url, "description": "", "contact": "", "docs_url": "", "agent_notes": ""}
    errors = field_errors(admin_client.post(SITE_PROFILE, form))
    assert "origin" in errors or "ASCII" in errors or "valid URL" in errors, errors


@pytest.mark.parametrize("docs_url", ["https://shop.example/docs/{v}", "https://shop.example/a|b",
                                      "https://shop.example/%zz"])
def test_a_docs_url_that_agents_json_could_not_publish_as_a_uri_is_refused(admin_client, unchanged, docs_url):
    form = {"name": "Acme Ceramics", "url": "", "description": "", "contact": "", "docs_url": docs_url,
            "agent_notes": ""}
    assert "RFC 3986" in field_errors(admin_client.post(SITE_PROFILE, form))


def _capability(config, name):
    return next(capability for capability in config["capabilities"] if capability["name"] == name)


def _params_of(config, name):
    return _capability(config, name)["params"]


@pytest.mark.parametrize("edit, problem", [
    (lambda config: config["site"].update(agent_notes="x" * 6000), "4000"),
    (lambda config: config["capabilities"][0].update(description="a\x00b"), "Null characters"),
    (lambda config: config["capabilities"][0].update(endpoint="/.well-known/agents/api/x/:id/:id"), ":name"),
    (lambda config: config["capabilities"][0].update(name="audit"), "session and audit"),
    (lambda config: _params_of(config, "browse")["page"].pop("minimum"), "count pages"),
    (lambda config: _params_of(config, "search")["limit"].update(minimum=0), "count pages"),
    (lambda config: _params_of(config, "search")["page"].update(type="number"), "count pages"),
    (lambda config: _capability(config, "detail").update(endpoint="/.well-known/agents/api/product/:slug"),
     "not one of this capability's parameters"),
    (lambda config: _params_of(config, "search")["limit"].update(maximum=float("inf")), "must be a finite number"),
    (lambda config: _params_of(config, "browse")["sort"].update(default=float("nan")), "must be finite"),
])
def test_the_import_refuses_what_admin_refuses(unchanged, edit, problem):
    config = copy.deepcopy(export_config())
    edit(config)
    with pytest.raises(ConfigFileError) as refused:
        import_config(config)
    assert any(problem in error for error in refused.value.errors), refused.value.errors


@pytest.mark.parametrize("endpoint, method, problem", [
    ("/.well-known/agents/api/detail/:item", "GET", "detail already answers GET"),
    ("/.well-known/agents/api/audit/:who", "GET", "The audit endpoint answers GET"),
])
def test_a_template_of_a_shape_another_route_answers_is_refused(admin_client, unchanged, endpoint, method, problem):
    errors = field_errors(admin_client.post(CAPABILITY_ADD, capability_form(endpoint=endpoint, method=method)))
    assert problem in errors, errors


def test_a_literal_path_an_earlier_template_would_answer_is_refused_either_way(admin_client, unchanged):
    """detail/:id (position 2 by default) answers /detail/featured first: a capability there is refused
    at a later position, and a template placed before an existing literal path likewise."""
    detail = Capability.objects.get(name="detail")
    later = capability_form(name="featured", endpoint="/.well-known/agents/api/detail/featured", method="GET",
                            position=str(detail.position + 1))
    assert "detail (/.well-known/agents/api/detail/:id) comes first" in field_errors(admin_client.post(CAPABILITY_ADD,
                                                                                                        later))
    search = Capability.objects.get(name="search")
    earlier = capability_form(name="lookup", endpoint="/.well-known/agents/api/:anything", method="GET",
                              position=str(max(search.position - 1, 0)), requires_session="")
    assert "would answer search&#x27;s path" in field_errors(admin_client.post(CAPABILITY_ADD, earlier))


# The router tries the session and audit endpoints before any capability.


def test_an_audit_endpoint_that_would_answer_a_capabilitys_path_is_refused(admin_client, unchanged):
    form = {"enabled": "on", "endpoint": "/.well-known/agents/api/:session_id"}
    errors = field_errors(admin_client.post("/admin/agents_protocol/auditconfig/1/change/", form))
    assert "This would answer GET on search&#x27;s path (/.well-known/agents/api/search)." in errors, errors
    assert AuditConfig.load().endpoint == "/.well-known/agents/api/audit/:session_id"


def test_a_capability_the_audit_endpoint_would_answer_first_is_refused(admin_client, unchanged):
    form = capability_form(name="trails", endpoint="/.well-known/agents/api/audit/recent", method="GET")
    assert "The audit endpoint answers GET on this path." in field_errors(admin_client.post(CAPABILITY_ADD, form))


def test_a_session_endpoint_that_would_answer_capabilities_paths_is_refused(admin_client, unchanged):
    form = {"create_endpoint": "/.well-known/agents/api/:anything",
            "delete_endpoint": "/.well-known/agents/api/session", "ttl_seconds": "1800"}
    errors = field_errors(admin_client.post("/admin/agents_protocol/sessionconfig/1/change/", form))
    assert "Capability checkout, contact already uses this endpoint and method." in errors, errors
    assert SessionConfig.load().create_endpoint == "/.well-known/agents/api/session"
