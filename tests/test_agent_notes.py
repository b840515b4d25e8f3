"""The site profile's notes for agents: edited in admin, published in llms.txt (the generic hook a
shop uses to tell agents about its own test data; the demo's come from acme/agent_notes.py)."""
import pytest
from django.core.exceptions import ValidationError

from acme.agent_notes import AGENT_NOTES
from agents_protocol.config_io import export_config, import_config
from agents_protocol.models import SiteProfile
from tests.api_client import IN_PROCESS_URL

TIMEOUT = 10


def llms_txt(http):
    response = http.get(f"{IN_PROCESS_URL}/llms.txt", timeout=TIMEOUT)
    assert response.status_code == 200
    return response.text


def test_the_demo_publishes_its_scenarios_in_llms_txt(http):
    text = llms_txt(http)

    assert SiteProfile.load().agent_notes == AGENT_NOTES  # filled by migration 0018 from DEFAULT_SITE
    assert AGENT_NOTES in text
    for scenario in ("test-sold-out-mug", "test-last-one-vase", "test-price-change-bowl", "test-tumbler-discontinued",
                     "sandbox:expired-checkout", "4000 0000 0000 0002", "4000 0000 0000 3063"):
        assert scenario in text
    assert text.index("**Limits**") < text.index(AGENT_NOTES) < text.index("## Docs")


def test_staff_edits_reach_llms_txt_at_once_and_blank_notes_publish_nothing(http):
    profile = SiteProfile.load()
    profile.agent_notes = "**Test data**: the item `demo-1` is always sold out."
    profile.full_clean()
    profile.save()
    assert "**Test data**: the item `demo-1` is always sold out." in llms_txt(http)

    profile.agent_notes = "   "
    profile.save()
    text = llms_txt(http)
    assert "demo-1" not in text and "test-sold-out-mug" not in text


@pytest.mark.django_db
def test_notes_may_not_hold_headings():
    profile = SiteProfile.load()
    profile.agent_notes = "Intro\n  ## Scenarios\n- one"
    with pytest.raises(ValidationError) as refused:
        profile.full_clean()
    assert "agent_notes" in refused.value.message_dict


@pytest.mark.django_db
def test_the_notes_travel_with_the_exported_configuration():
    exported = export_config()
    assert exported["site"]["agent_notes"] == AGENT_NOTES
    SiteProfile.objects.filter(pk=1).update(agent_notes="")

    import_config(exported)

    assert SiteProfile.load().agent_notes == AGENT_NOTES
