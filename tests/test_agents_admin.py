"""Admin edits everything agents may do and refuses any change that would publish an invalid document."""
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from agents_protocol.config_io import export_config
from agents_protocol.core.config import current_revision
from agents_protocol.models import AuditEvent, Capability, Flow, FlowStep, SessionConfig
from tests.factories import make_agent_session

pytestmark = pytest.mark.django_db

CAPABILITY_ADD = "/admin/agents_protocol/capability/add/"


def inline_management(prefix, total, initial=0):
    return {
        f"{prefix}-TOTAL_FORMS": str(total),
        f"{prefix}-INITIAL_FORMS": str(initial),
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }


def capability_form(params=(), **fields):
    data = {
        "name": "reserve",
        "description": "Reserve a product",
        "endpoint": "/.well-known/agents/api/reserve",
        "method": "POST",
        "requires_session": "on",
        "enabled": "on",
        "position": "20",
        **inline_management("params", len(params)),
    }
    data.update(fields)
    for index, param in enumerate(params):
        defaults = {"position": str(index), "type": "string", "default": "", "enum": "", "items": "", "description": ""}
        data.update({f"params-{index}-{key}": value for key, value in {**defaults, **param}.items()})
    return data


def flow_form(step_capability_ids, **fields):
    data = {"name": "quick-buy", "description": "Straight to the cart", "position": "1",
            **inline_management("steps", len(step_capability_ids))}
    data.update(fields)
    for index, capability_id in enumerate(step_capability_ids):
        data[f"steps-{index}-position"] = str(index)
        data[f"steps-{index}-capability"] = str(capability_id)
    return data


@pytest.fixture
def unchanged():
    """Asserts, after the test's request, that neither the config nor its revision moved."""
    before = (export_config(), current_revision())
    yield
    assert (export_config(), current_revision()) == before


def field_errors(response):
    """Error texts of the admin form and its inlines, flattened."""
    assert response.status_code == 200, "a refused form is shown again with errors, not saved"
    context = response.context
    errors = [str(e) for e in context["adminform"].form.errors.values()]
    for formset in context["inline_admin_formsets"]:
        errors += [str(e) for form_errors in formset.formset.errors for e in form_errors.values()]
        errors += [str(e) for e in formset.formset.non_form_errors()]
    return " ".join(errors)


def test_a_valid_new_capability_with_params_is_saved_and_published(admin_client, client):
    params = [{"name": "item_id", "required": "on"}, {"name": "days", "type": "integer", "default": "3"}]
    response = admin_client.post(CAPABILITY_ADD, capability_form(params))
    assert response.status_code == 302
    published = json.loads(client.get("/.well-known/agents.json").content)
    reserve = next(c for c in published["capabilities"] if c["name"] == "reserve")
    assert reserve["params"] == {
        "item_id": {"type": "string", "required": True},
        "days": {"type": "integer", "required": False, "default": 3},
    }
    assert "Allow: reserve" in client.get("/.well-known/agents.txt").content.decode()


@pytest.mark.parametrize("name", ["Reserve", "re serve", "1reserve", "reserve!"])
def test_capability_names_with_capitals_spaces_or_symbols_are_refused(admin_client, unchanged, name):
    response = admin_client.post(CAPABILITY_ADD, capability_form(name=name))
    assert "lowercase letters" in field_errors(response)


def test_two_capabilities_on_one_endpoint_and_method_are_refused(admin_client, unchanged):
    form = capability_form(endpoint="/.well-known/agents/api/search", method="GET")
    assert "already uses this endpoint and method" in field_errors(admin_client.post(CAPABILITY_ADD, form))


def test_a_capability_on_the_session_route_is_refused(admin_client, unchanged):
    form = capability_form(endpoint="/.well-known/agents/api/session", method="POST")
    assert "used by the session API" in field_errors(admin_client.post(CAPABILITY_ADD, form))


@pytest.mark.parametrize("endpoint", ["relative/path", "/with space", "/query?x=1", "/trailing/", "/:Bad"])
def test_malformed_endpoints_are_refused(admin_client, unchanged, endpoint):
    response = admin_client.post(CAPABILITY_ADD, capability_form(endpoint=endpoint))
    assert "origin-relative path" in field_errors(response)


def test_a_param_type_outside_the_spec_is_refused(admin_client, unchanged):
    form = capability_form([{"name": "when", "type": "date"}])
    assert "Select a valid choice" in field_errors(admin_client.post(CAPABILITY_ADD, form))


def test_an_enum_default_outside_the_enum_is_refused_and_nothing_is_saved(admin_client, unchanged):
    form = capability_form([{"name": "size", "enum": '["s", "m"]', "default": '"xl"'}])
    assert "Default must be one of the enum values" in field_errors(admin_client.post(CAPABILITY_ADD, form))
    assert not Capability.objects.filter(name="reserve").exists()


@pytest.mark.parametrize(
    "param, message",
    [
        ({"name": "n", "type": "integer", "default": '"three"'}, "Default must be of type integer"),
        ({"name": "n", "type": "string", "enum": "[]"}, "non-empty JSON list"),
        ({"name": "n", "type": "string", "enum": '["a", 1]'}, "Every enum value must be of type string"),
        ({"name": "n", "type": "string", "items": '{"type": "string"}'}, "only applies to parameters of type array"),
        ({"name": "bad name"}, "letters, digits and underscores"),
    ],
)
def test_inconsistent_param_descriptors_are_refused(admin_client, unchanged, param, message):
    assert message in field_errors(admin_client.post(CAPABILITY_ADD, capability_form([param])))


def test_disabling_a_capability_used_by_a_flow_is_refused(admin_client, unchanged):
    checkout = Capability.objects.get(name="checkout")
    form = capability_form(
        name="checkout", endpoint=checkout.endpoint, method="POST", description=checkout.description,
        enabled="", human_handoff="on", position=str(checkout.position),
    )
    response = admin_client.post(f"/admin/agents_protocol/capability/{checkout.pk}/change/", form)
    assert "Flow purchase uses this capability" in field_errors(response)


def test_disabling_an_unused_capability_removes_it_from_both_documents(admin_client, client):
    contact = Capability.objects.get(name="contact")
    form = capability_form(name="contact", endpoint=contact.endpoint, method="POST", requires_session="",
                           enabled="", position=str(contact.position))
    form.update(inline_management("params", 0, 0))
    response = admin_client.post(f"/admin/agents_protocol/capability/{contact.pk}/change/", form)
    assert response.status_code == 302
    assert "Allow: contact" not in client.get("/.well-known/agents.txt").content.decode()
    names = [c["name"] for c in json.loads(client.get("/.well-known/agents.json").content)["capabilities"]]
    assert "contact" not in names and "search" in names


def test_a_flow_step_naming_a_disabled_capability_is_refused(admin_client, unchanged):
    Capability.objects.filter(name="contact").update(enabled=False)
    before = (export_config(), current_revision())
    contact = Capability.objects.get(name="contact")
    response = admin_client.post("/admin/agents_protocol/flow/add/", flow_form([contact.pk]))
    assert "contact is disabled" in field_errors(response)
    assert (export_config(), current_revision()) == before
    Capability.objects.filter(name="contact").update(enabled=True)


def test_a_flow_step_naming_an_unknown_capability_is_refused(admin_client, unchanged):
    response = admin_client.post("/admin/agents_protocol/flow/add/", flow_form([987654]))
    assert "Select a valid choice" in field_errors(response)


def test_a_valid_flow_is_saved_in_step_order(admin_client):
    ids = [Capability.objects.get(name=n).pk for n in ("browse", "cart.add")]
    assert admin_client.post("/admin/agents_protocol/flow/add/", flow_form(ids)).status_code == 302
    steps = FlowStep.objects.filter(flow__name="quick-buy").order_by("position")
    assert [s.capability.name for s in steps] == ["browse", "cart.add"]


def test_a_flow_name_with_capitals_is_refused(admin_client, unchanged):
    ids = [Capability.objects.get(name="browse").pk]
    response = admin_client.post("/admin/agents_protocol/flow/add/", flow_form(ids, name="Quick Buy"))
    assert "lowercase letters" in field_errors(response)
    assert not Flow.objects.filter(name="Quick Buy").exists()


@pytest.mark.parametrize("ttl", ["59", "0", "-5"])
def test_session_ttl_below_60_is_refused(admin_client, unchanged, ttl):
    form = {"create_endpoint": "/.well-known/agents/api/session",
            "delete_endpoint": "/.well-known/agents/api/session", "ttl_seconds": ttl}
    response = admin_client.post("/admin/agents_protocol/sessionconfig/1/change/", form)
    assert "greater than or equal to" in field_errors(response)


def test_session_ttl_change_is_published(admin_client, client):
    form = {"create_endpoint": "/.well-known/agents/api/session",
            "delete_endpoint": "/.well-known/agents/api/session", "ttl_seconds": "900"}
    assert admin_client.post("/admin/agents_protocol/sessionconfig/1/change/", form).status_code == 302
    assert SessionConfig.load().ttl_seconds == 900
    assert "Session-TTL: 900s" in client.get("/.well-known/agents.txt").content.decode()


def test_rate_limit_must_be_positive(admin_client, unchanged):
    response = admin_client.post("/admin/agents_protocol/ratelimitconfig/1/change/",
                                 {"requests_per_minute": "0", "max_sessions": "5"})
    assert "greater than or equal to 1" in field_errors(response)


def test_site_profile_refuses_a_bad_contact_and_multiline_description(admin_client, unchanged):
    form = {"name": "Acme Ceramics", "url": "", "description": "one\ntwo", "contact": "not a contact", "docs_url": ""}
    errors = field_errors(admin_client.post("/admin/agents_protocol/siteprofile/1/change/", form))
    assert "email address or an http(s) URL" in errors


def test_site_profile_page_previews_both_documents(admin_client):
    response = admin_client.get("/admin/agents_protocol/siteprofile/1/change/")
    page = response.content.decode()
    assert "Allow: cart.add" in page
    assert "&quot;schema_version&quot;: &quot;0.1.0&quot;" in page


def test_singleton_list_opens_the_single_row(admin_client):
    response = admin_client.get("/admin/agents_protocol/ratelimitconfig/")
    assert response.status_code == 302 and response["Location"].endswith("/ratelimitconfig/1/change/")


@pytest.mark.parametrize(
    "path",
    [
        "/admin/catalog/product/?q=mug&is_active__exact=1",
        "/admin/catalog/category/?q=mug",
        "/admin/cart/cart/?status__exact=open",
        "/admin/cart/order/?q=AC-&status=pending",
        "/admin/agents_protocol/capability/?enabled__exact=1&q=cart",
        "/admin/agents_protocol/flow/",
        "/admin/agents_protocol/agentsession/",
        "/admin/agents_protocol/auditevent/?session__id__exact=1",
    ],
)
def test_shop_admin_lists_search_and_filter(admin_client, path):
    assert admin_client.get(path).status_code == 200


def test_admin_requires_a_staff_login(client):
    response = client.get("/admin/agents_protocol/capability/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_the_sessions_list_filters_by_end_reason_and_lists_the_newest_first(admin_client):
    live, ended, overdue = make_agent_session(), make_agent_session(), make_agent_session()
    type(ended).objects.filter(pk=ended.pk).update(end_reason="expired")
    type(overdue).objects.filter(pk=overdue.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    listed = admin_client.get("/admin/agents_protocol/agentsession/").context["cl"].result_list
    assert [s.pk for s in listed][:3] == [overdue.pk, ended.pk, live.pk]
    expired = admin_client.get("/admin/agents_protocol/agentsession/", {"end_reason": "expired"})
    assert [s.pk for s in expired.context["cl"].result_list] == [overdue.pk, ended.pk]  # sealed or not yet
    still_live = admin_client.get("/admin/agents_protocol/agentsession/", {"end_reason": "live"})
    assert [s.pk for s in still_live.context["cl"].result_list] == [live.pk]
    # A session is its audit trail: agents_prune removes old ones, staff do not delete them.
    assert admin_client.post(f"/admin/agents_protocol/agentsession/{live.pk}/delete/", {"post": "yes"}).status_code == 403


def test_a_busy_sessions_page_shows_its_latest_events_and_links_to_every_one_paged(admin_client):
    busy, other = make_agent_session(), make_agent_session()
    for session in (busy, other):
        AuditEvent.objects.bulk_create(
            AuditEvent(session=session, seq=seq, event_id=f"{session.pk}-{seq}", timestamp=f"t{seq}",
                       capability="search", method="GET", path=f"/probe/{session.pk}/{seq}", response_status=200,
                       policy_result="allow", event_hash="0" * 64)
            for seq in range(1, 251))
        type(session).objects.filter(pk=session.pk).update(event_count=250)

    page = admin_client.get(f"/admin/agents_protocol/agentsession/{busy.pk}/change/").content.decode()
    shown = [seq for seq in range(1, 251) if f"/probe/{busy.pk}/{seq}<" in page]
    assert shown == list(range(231, 251))  # the last 20, not 250 rows
    assert f"/probe/{other.pk}/" not in page
    link = f"/admin/agents_protocol/auditevent/?session__id__exact={busy.pk}"
    assert f'href="{link}"' in page and "All 250 events" in page

    every = admin_client.get(link)
    listed = every.context["cl"].result_list
    assert [e.seq for e in listed] == list(range(1, 101))  # paged, in chain order
    assert {e.session_id for e in listed} == {busy.pk}
    assert [e.seq for e in admin_client.get(link + "&p=3").context["cl"].result_list] == list(range(201, 251))
    event = listed[0]
    assert admin_client.post(f"/admin/agents_protocol/auditevent/{event.pk}/change/", {}).status_code == 403
    assert admin_client.post(f"/admin/agents_protocol/auditevent/{event.pk}/delete/", {"post": "yes"}).status_code == 403
