"""Skills called through PactSpec or A2A are agent API calls like any other (in process): same rate limit, same
audit chain."""
from agents_protocol.models import AuditEvent, RateLimitConfig
from catalog.demo import load_demo_catalog
from tests.api_client import API, IN_PROCESS_URL, AgentClient, auth_headers

PACTSPEC = "/.well-known/agents/pactspec"
A2A = "/.well-known/agents/a2a"


def send_message(http, skill, skill_input, headers=None):
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m1", "role": "ROLE_USER", "parts": [{"data": {"skill": skill, "input": skill_input}}]}}}
    return http.post(f"{IN_PROCESS_URL}{A2A}", json=body, headers={"A2A-Version": "1.0", **(headers or {})},
                     timeout=10)


def test_calls_of_a_session_join_its_audit_chain(http):
    load_demo_catalog()
    shopper = AgentClient(django_client=http.django_client)
    session = shopper.start_session(agent_name="interop")
    bearer = auth_headers(session["session_token"])

    added = http.post(f"{IN_PROCESS_URL}{PACTSPEC}/cart-add", json={"item_id": "mug-celadon"},
                      headers=bearer, timeout=10)
    refused = http.post(f"{IN_PROCESS_URL}{PACTSPEC}", json={"skill": "cart-add", "input": {"item_id": "nope"}},
                        headers=bearer, timeout=10)
    viewed = send_message(http, "cart.view", {}, bearer)
    assert (added.status_code, refused.status_code, viewed.status_code) == (200, 404, 200)
    assert viewed.json()["result"]["message"]["parts"][0]["data"]["cart_size"] == 1

    events = AuditEvent.objects.filter(session__public_id=session["session_id"]).order_by("seq")
    assert [(e.capability, e.method, e.path, e.response_status, e.policy_result) for e in events][1:] == [
        ("cart.add", "POST", f"{PACTSPEC}/cart-add", 200, "allow"),
        ("cart.add", "POST", PACTSPEC, 404, f"deny:{refused.json()['code']}"),
        ("cart.view", "POST", A2A, 200, "allow"),
    ]
    assert events[1].params == {"item_id": "mug-celadon", "quantity": 1}
    assert events[1].prev_hash == events[0].event_hash


def test_one_rate_limit_for_the_api_pactspec_and_a2a(http):
    limits = RateLimitConfig.load()
    limits.requests_per_minute = 3
    limits.save()
    refused = http.post(f"{IN_PROCESS_URL}{PACTSPEC}", json={"skill": "teleport"}, timeout=10)
    assert refused.status_code == 400  # refusals count too, against the address
    assert (refused.headers["X-RateLimit-Limit"], refused.headers["X-RateLimit-Remaining"]) == ("3", "2")
    assert AgentClient(django_client=http.django_client).get(f"{API}/browse").status_code == 200
    assert send_message(http, "browse", {}).status_code == 200

    over = http.post(f"{IN_PROCESS_URL}{PACTSPEC}/browse", json={}, timeout=10)
    assert over.status_code == 429 and over.json()["code"] == "rate_limited"
    assert int(over.headers["Retry-After"]) >= 1
    malformed = http.post(f"{IN_PROCESS_URL}{A2A}", data="{", timeout=10,
                          headers={"Content-Type": "application/json"})
    assert malformed.status_code == 429 and int(malformed.headers["Retry-After"]) >= 1
    assert malformed.json()["error"]["data"][0]["metadata"] == {"code": "rate_limited", "status": "429"}
