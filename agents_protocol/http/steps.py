"""What every call gets besides its answer: the pipeline's steps around the handler (STEP_CLASSES).

A step is a class with three hooks, each called on a new instance per request (as DRF makes
its authentication and throttle classes), in the order of the list:

    before_handler(view, request, params, body)   the parameters are valid, the handler about
                                                  to run: a Response answers instead (a replay)
    change_recorder(view)                         what runs in the transaction of the change the
                                                  handler records (record_change), or None
    after(view, request, response)                the answer is rendered, refusals included

The defaults are those below, in that order. A view names its own list in `step_classes` (a
transport with its own idempotency or principal rules); what a step reads of the call is on
the view: `capability`, `agent_session`, `opened` (a session the call created), `replayed`,
`handled`, `outcome(response)`.
"""
import logging
import time
from dataclasses import dataclass, field

from agents_protocol.activity import recorder
from agents_protocol.audit import policy
from agents_protocol.audit.chain import PendingEvent, record_event
from agents_protocol.core.reserved import SESSION_CREATE
from agents_protocol.documents.interop import site_base
from agents_protocol.http import idempotency, limits
from agents_protocol.http.cors import allow_any_origin
from agents_protocol.http.responses import PipelineResponse

logger = logging.getLogger("agents_protocol.api")


class Step:
    def before_handler(self, view, request, params, body):
        return None

    def change_recorder(self, view):
        return None

    def after(self, view, request, response):
        return response


class AuditTrail(Step):
    """The call's event in its session's signed chain, refused and failed calls included.

    A handler that recorded its change (CallContext.record_change) appended the event already,
    in the transaction of the change: kept if the handler then returned, or if that transaction
    committed before the handler failed. Otherwise the event made before the call is appended
    once the call succeeded, or an event of the failure. Of the calls a rate limit refuses, the
    session's first in each window of that limit is recorded.
    """

    params = None
    pending = None

    def before_handler(self, view, request, params, body):
        self.params = params

    def change_recorder(self, view):
        if view.agent_session is None:
            return None
        self.pending = PendingEvent(view.agent_session, capability=view.capability.name,
                                    method=view.django_request.method, path=view.django_request.path,
                                    params=self.params, response_status=200, policy_result=policy.ALLOW)
        return self.pending.append_with_change

    def after(self, view, request, response):
        call = self.audited_call(view)
        if call is None or (self.pending is not None and self.pending.appended
                            and (view.handled or self.pending.settled)):
            return response
        status, code = view.outcome(response)
        if code == "rate_limited" and not limits.first_refusal_in_session(view.request, call.session):
            return response
        policy_result = policy.REPLAYED if view.replayed else policy.denied(code) if code else policy.ALLOW
        http = view.django_request
        try:
            if self.pending and not self.pending.appended and (status, policy_result) == (200, policy.ALLOW):
                self.pending.append()
            else:
                record_event(call.session, capability=call.capability, method=http.method, path=http.path,
                             params=call.params, response_status=status, policy_result=policy_result,
                             hint=view.refusal.message if code else "")
        except Exception:
            # The call has already happened; losing its record is logged, never hidden behind a 500.
            logger.exception("Could not record the audit event (request id %s)", view.request_id)
        return response

    def audited_call(self, view):
        """What the event records: the session.create of a session the call opened, or the call of
        a capability made in a session; None for anything else."""
        if view.opened is not None:
            return AuditedCall.opening(view.opened.session, view.opened.agent, site_base(view.config, view.origin))
        if view.capability is not None and view.agent_session is not None:
            return AuditedCall(view.agent_session, view.capability.name, self.params or {})
        return None


@dataclass
class AuditedCall:
    session: object
    capability: str
    params: dict = field(default_factory=dict)

    @classmethod
    def opening(cls, session, agent, site):
        """The session.create call: its params are the agent's, with the session's public id and the
        site's URL (`site`), which bind the signed chain to the session and site its artifact names
        (the signature covers the events only)."""
        return cls(session, SESSION_CREATE, {**agent, "session_id": session.public_id, "site": site})


class Idempotency(Step):
    """`Idempotency-Key` on POST calls that change something (http/idempotency.py): the stored
    answer for a key sent again, else the key claimed, marked once the call's change commits,
    and the answer kept for it."""

    claim = None
    methods = ("POST",)  # the HTTP methods whose calls honour the key (UCP's PUT too: transports/ucp.py)

    def before_handler(self, view, request, params, body):
        """A capability that only reads (method GET, reached by POST through A2A, PactSpec or MCP)
        ignores the key: running it again changes nothing, and keeping its answers a day would
        store every page a client asks for under a fresh key."""
        http = view.django_request
        changes = http.method in self.methods and view.capability.method != "GET"
        key = idempotency.key_from(http) if changes else None
        if key is None:
            return None
        scope = view.idempotency_scope()
        outcome = idempotency.begin(scope, key, idempotency.fingerprint(http.method, http.path,
                                                                        view.capability.name, body))
        if isinstance(outcome, idempotency.Replay):
            return PipelineResponse(outcome.body, status=outcome.status, headers={"Idempotent-Replayed": "true"})
        self.claim = outcome
        return None

    def change_recorder(self, view):
        """The key marked as having changed something, in the transaction of the change, so that a
        retry after an answer lost in between is never run a second time."""
        claim = self.claim
        return None if claim is None else (lambda: idempotency.mark_changed(claim))

    def after(self, view, request, response):
        if self.claim is None:
            return response
        outcome_status, _ = view.outcome(response)
        try:
            idempotency.finish(self.claim, outcome_status, response.status_code, response.data)
        except Exception:
            # The answer is on its way; a retry gets 409 (in flight, then idempotency_outcome_unknown
            # if the call changed something, else it runs again once the lease ends).
            logger.exception("Could not store the answer for its Idempotency-Key (request id %s)", view.request_id)
        return response


class RateLimitHeaders(Step):
    """X-RateLimit-* on every counted answer."""

    def after(self, view, request, response):
        for name, value in limits.response_headers(request).items():
            response[name] = value
        return response


class RequestIdNoStore(Step):
    """X-Request-ID (the id an internal error's sentence names) and Cache-Control: no-store."""

    def after(self, view, request, response):
        response["X-Request-ID"] = view.request_id
        response["Cache-Control"] = "no-store"
        return response


class AnyOrigin(Step):
    """CORS: readable from any origin (bearer tokens only, no cookies)."""

    def after(self, view, request, response):
        return allow_any_origin(response)


class ActivityRecord(Step):
    """The call, its outcome and duration, for the activity page (activity/); last, to time it all."""

    def after(self, view, request, response):
        status, code = view.outcome(response)
        session = view.agent_session or (view.opened.session if view.opened is not None else None)
        duration_us = (time.perf_counter_ns() - view.started_ns) // 1000
        recorder.calls.add(view.call_name(), session, status, code, duration_us)
        return response
