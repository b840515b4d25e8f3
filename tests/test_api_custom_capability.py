"""A shop's own capability: registered in code, added as data, then published and routed like the built-ins."""
import pytest
from django.core.checks import run_checks
from jsonschema.exceptions import SchemaError
from django.core.management import call_command

from agents_protocol.core.capabilities import handler_for, register, unregister
from agents_protocol.models import Capability, CapabilityParam
from tests.api_client import API, IN_PROCESS_URL, AgentClient, DiscoveringAgent, assert_error, ok_data
from tests.factories import make_product
from tests.test_interop_mcp import open_session, tools_of

RESERVE = f"{API}/reserve/:item_id"


def reserve(call):
    return {
        "reserved": call.params["item_id"],
        "days": call.params["days"],
        "session_id": call.context.session.public_id,
    }


@pytest.fixture
def reserve_capability(db):
    register("reserve", reserve)
    capability = Capability.objects.create(
        name="reserve", description="Hold a product for a few days", endpoint=RESERVE, method="POST",
        requires_session=True, position=20,
    )
    CapabilityParam.objects.create(capability=capability, name="item_id", type="string", required=True)
    CapabilityParam.objects.create(capability=capability, name="days", type="integer", default=3, position=1)
    yield capability
    unregister("reserve")


RESERVED = {
    "type": "object",
    "required": ["reserved", "days"],
    "properties": {
        "reserved": {"type": "string"},
        "days": {"type": "integer", "minimum": 1},
        "page": {"type": "string", "format": "uri"},
    },
}


def reserve_as_declared(call):
    """Ids and pages as a Django shop holds them: a pk, and a path."""
    return {"reserved": 42, "days": call.params["days"], "page": "/reservations/42/"}


@pytest.fixture
def declared_reserve(reserve_capability):
    register("reserve", reserve_as_declared, output=RESERVED)
    return reserve_capability


def warnings_w001():
    return [message.msg for message in run_checks(databases=["default"]) if message.id == "agents_protocol.W001"]


def test_a_registered_capability_is_published_in_both_documents(http, site_client, reserve_capability):
    declared = DiscoveringAgent(django_client=site_client).capability("reserve")
    assert declared == {
        "name": "reserve",
        "description": "Hold a product for a few days",
        "endpoint": RESERVE,
        "method": "POST",
        "params": {"item_id": {"type": "string", "required": True},
                   "days": {"type": "integer", "required": False, "default": 3}},
        "requires_session": True,
        "human_handoff": False,
    }
    agents_txt = http.get(f"{IN_PROCESS_URL}/.well-known/agents.txt", timeout=10).text
    assert "Allow: reserve" in agents_txt.splitlines()


def test_a_registered_capability_is_routed_with_its_path_parameter_and_session(site_client, reserve_capability):
    agent = AgentClient(django_client=site_client)
    mug = make_product()
    assert_error(agent.post(f"{API}/reserve/{mug.public_id}"), 401, "session_required")

    session = agent.start_session()
    assert "reserve" in session["capabilities"]
    reserved = ok_data(agent.post(f"{API}/reserve/{mug.public_id}", {"days": 5, "item_id": "ignored"}))
    assert reserved == {"reserved": mug.public_id, "days": 5, "session_id": session["session_id"]}
    assert ok_data(agent.post(f"{API}/reserve/{mug.public_id}"))["days"] == 3
    assert "days" in assert_error(agent.post(f"{API}/reserve/{mug.public_id}", {"days": "5"}), 400,
                                  "invalid_params")["fields"]


def test_a_registered_capability_follows_the_discovering_agent(site_client, reserve_capability):
    agent = DiscoveringAgent(django_client=site_client)
    agent.start_session()
    assert ok_data(agent.call("reserve", item_id="vase-1", days=2))["reserved"] == "vase-1"


def test_check_warns_about_an_enabled_capability_without_a_handler_and_it_answers_501(http):
    Capability.objects.create(name="teleport", endpoint=f"{API}/teleport", method="POST", position=30)
    assert warnings_w001() == [
        "The enabled capability 'teleport' has no handler; agents calling it get 501 not_implemented."
    ]
    response = http.post(f"{IN_PROCESS_URL}{API}/teleport", timeout=10)
    assert_error(response, 501, "not_implemented")


def test_check_is_quiet_once_the_handler_is_registered_or_the_capability_disabled(reserve_capability):
    assert warnings_w001() == []
    Capability.objects.create(name="teleport", endpoint=f"{API}/teleport", method="POST", enabled=False)
    assert warnings_w001() == []


def test_manage_py_check_prints_the_warning(db, capsys):
    Capability.objects.create(name="teleport", endpoint=f"{API}/teleport", method="POST", position=30)
    call_command("check", "--database", "default")
    assert "agents_protocol.W001" in capsys.readouterr().err


def test_a_registered_output_is_the_one_every_document_publishes(http, declared_reserve):
    document = http.get(f"{IN_PROCESS_URL}/.well-known/agents/openapi.json", timeout=10).json()
    answered = document["paths"][f"{API}/reserve/{{item_id}}"]["post"]["responses"]["200"]["content"]
    pactspec = http.get(f"{IN_PROCESS_URL}/.well-known/pactspec.json", timeout=10).json()
    skill = next(skill for skill in pactspec["skills"] if skill["id"] == "reserve")
    mcp = f"{IN_PROCESS_URL}/mcp"
    tool = tools_of(mcp, open_session(mcp, http=http), http)["reserve"]
    card = http.get(f"{IN_PROCESS_URL}/.well-known/agent-card.json", timeout=10).json()
    a2a_skill = next(skill for skill in card["skills"] if skill["id"] == "reserve")
    assert answered["application/json"]["schema"]["properties"]["data"] == RESERVED
    assert skill["outputSchema"] == RESERVED
    assert tool["outputSchema"] == RESERVED
    assert a2a_skill["description"].endswith(". Output: reserved (string, required); days (integer, required); "
                                             "page (string).")  # A2A has no field for a schema


def test_an_answer_is_written_as_its_registered_output_declares(site_client, declared_reserve):
    agent = AgentClient(django_client=site_client)
    agent.start_session()
    reserved = ok_data(agent.post(f"{API}/reserve/mug", {"days": 2}))
    assert reserved == {"reserved": "42", "days": 2, "page": f"{IN_PROCESS_URL}/reservations/42/"}


def test_an_answer_unlike_its_registered_output_is_the_handlers_error(site_client, declared_reserve, caplog):
    register("reserve", lambda call: {"reserved": "mug", "days": 0}, output=RESERVED)
    agent = AgentClient(django_client=site_client)
    agent.start_session()
    assert_error(agent.post(f"{API}/reserve/mug"), 500, "internal_error")
    assert "answer to reserve does not have the declared shape" in caplog.text
    assert "days 0 is below 1" in caplog.text


def test_a_handler_registered_without_an_output_answers_what_it_returns(http, reserve_capability):
    pactspec = http.get(f"{IN_PROCESS_URL}/.well-known/pactspec.json", timeout=10).json()
    skill = next(skill for skill in pactspec["skills"] if skill["id"] == "reserve")
    mcp = f"{IN_PROCESS_URL}/mcp"
    assert "type" not in skill["outputSchema"]
    assert "outputSchema" not in tools_of(mcp, open_session(mcp, http=http), http)["reserve"]


def test_an_output_that_is_no_json_schema_is_refused_when_registered():
    with pytest.raises(SchemaError):
        register("reserve", reserve, output={"type": "obj"})
    assert handler_for("reserve") is None


def test_a_type_the_writer_does_not_know_is_answered_as_given(site_client, reserve_capability):
    register("reserve", lambda call: {"reserved": None, "days": "3"}, output={
        "type": "object", "properties": {"reserved": {"type": ["string", "null"]}, "days": {"type": "null"}}})
    agent = AgentClient(django_client=site_client)
    agent.start_session()
    assert ok_data(agent.post(f"{API}/reserve/mug")) == {"reserved": None, "days": "3"}
