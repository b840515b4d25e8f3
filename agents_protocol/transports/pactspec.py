"""PactSpec skill invocation and generated test suites (the convention is in documents/pactspec.py).

POST endpoint.url                      {"skill": "<skill id>", "input": {…}}
POST endpoint.url/<skill id>           {…the input…}
GET  endpoint.url/<skill id>/tests.json   the skill's http-roundtrip test suite

A thin adapter over the pipeline (http/pipeline.py): the same steps in the same order as the
agent API (authentication, limits, body guards, parameter validation, Idempotency-Key, audit). A skill answers
its capability's data as it is; a refusal is the agent API's envelope and status.
"""
from rest_framework.response import Response

from agents_protocol.core.errors import bad_request, not_found
from agents_protocol.core.examples import capture_examples
from agents_protocol.documents.pactspec import build_test_suite, skill_ids
from agents_protocol.http.pipeline import AgentView
from agents_protocol.http.responses import PipelineResponse


class SkillInvocation(AgentView):
    """POST the input to the skill's own URL, or {"skill", "input"} to the endpoint. The skill's own
    URL names the call: its body is read once the caller is known and counted, as the agent API's;
    the endpoint's body names the skill, so resolve() reads it."""

    skill_input = None

    def resolve(self, request, skill_id=None):
        if skill_id is None:
            body = json_object(request)
            skill_id, self.skill_input = body.get("skill"), body.get("input", {})
            self.capability = capability_of(self.config, skill_id)
            if self.capability is None:
                raise bad_request(f"No skill {skill_id!r}; see the skills of /.well-known/pactspec.json.",
                                  "unknown_skill",
                                  fields={"skill": "Must be the id of a skill in /.well-known/pactspec.json."})
            if not isinstance(self.skill_input, dict):
                raise bad_request("The skill input must be a JSON object of parameters.", "invalid_params",
                                  fields={"input": "Must be a JSON object."})
        else:
            self.capability = known_capability(self.config, skill_id)
        self.requires_session = self.capability.requires_session

    def post(self, request, *args, **kwargs):
        skill_input = json_object(request) if self.skill_input is None else self.skill_input
        outcome = self.call_capability(skill_input)
        return outcome if isinstance(outcome, Response) else PipelineResponse(outcome)


def json_object(request):
    body = request.data
    if not isinstance(body, dict):
        raise bad_request("The request body must be a JSON object.", "invalid_json")
    return body


class SkillTestSuite(AgentView):
    """GET a skill's test suite, built from a captured example; counted per client address."""

    counts_per_session = False

    def resolve(self, request, skill_id):
        self.skill = known_capability(self.config, skill_id)

    def get(self, request, skill_id):
        example = capture_examples(self.config, self.origin).get(self.skill.name)
        return PipelineResponse(build_test_suite(self.skill, skill_id, example))


def capability_of(config, skill_id):
    names = {skill: name for name, skill in skill_ids(config).items()}
    name = names.get(skill_id) if isinstance(skill_id, str) else None
    return next((c for c in config.enabled_capabilities if c.name == name), None)


def known_capability(config, skill_id):
    capability = capability_of(config, skill_id)
    if capability is None:
        raise not_found(f"No skill {skill_id!r} here; see /.well-known/pactspec.json.")
    return capability


invoke = SkillInvocation.as_view()
test_suite = SkillTestSuite.as_view()
