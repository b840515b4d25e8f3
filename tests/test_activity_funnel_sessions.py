"""The activity funnel counts by session as far as the calls allow (issue 39, item 15): search needs
no session, so a session that searched without its token and then added, checked out and paid is
in every step; the page says what it cannot see."""
from datetime import timedelta

import pytest
from django.utils import timezone

from agents_protocol.activity import recorder, report
from agents_protocol.core.provider import ShopProvider
from tests.factories import make_agent_session

pytestmark = pytest.mark.django_db


class PaidProvider(ShopProvider):
    paid = set()

    def paid_sessions(self, session_pks):
        return self.paid & set(session_pks)


def record(capability, session, token_sent=True):
    recorder.insert([(timezone.now().timestamp(), capability, session.pk if token_sent else None,
                      session.agent_name, session.agent_version, 200, "", 1000)])


def today():
    day = timezone.localdate()
    return report.Filters(report.Period(day - timedelta(days=1), day))


def test_a_session_that_searched_without_its_token_is_in_every_step_it_reached(settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "PROVIDER": f"{__name__}.PaidProvider"}
    buyer, browser = make_agent_session(agent_name="buyer"), make_agent_session(agent_name="browser")
    for session in (buyer, browser):
        record("session.create", session)
    record("search", buyer, token_sent=False)
    for capability in ("cart.add", "checkout"):
        record(capability, buyer)
    record("search", browser)
    PaidProvider.paid = {buyer.pk}

    funnel = report.activity(today()).funnel
    assert [(step.name, step.sessions) for step in funnel] == [
        ("sessions", 2), ("searched", 2), ("added to cart", 1), ("checked out", 1), ("paid", 1)]


def test_the_page_says_what_the_funnel_cannot_see(admin_client):
    page = admin_client.get("/admin/agents_protocol/agentcall/")
    assert page.status_code == 200
    assert "a call made without the session&#x27;s token belongs to no session" in page.content.decode()
