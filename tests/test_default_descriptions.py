"""After migrate, the capabilities are described in words true of any shop (issue 39, item 14); the
demo's own words come with its catalog (manage.py load_demo_catalog), where staff left the defaults."""
import pytest
from django.core.management import call_command

from agents_protocol.core.defaults import DEFAULT_CAPABILITIES
from agents_protocol.core.models import Capability, CapabilityParam

pytestmark = pytest.mark.django_db

DEMO_WORDS = ("rank first", "variants")


def descriptions():
    return {
        "search": Capability.objects.get(name="search").description,
        "detail": Capability.objects.get(name="detail").description,
        "cart.add item_id": CapabilityParam.objects.get(capability__name="cart.add", name="item_id").description,
    }


def test_migrate_describes_the_capabilities_as_any_shop_has_them():
    written = descriptions()
    assert not [text for text in written.values() for word in DEMO_WORDS if word in text], written
    declared = {c["name"]: c for c in DEFAULT_CAPABILITIES}
    assert written["search"] == declared["search"]["description"]
    assert written["detail"] == declared["detail"]["description"]
    assert written["cart.add item_id"] == declared["cart.add"]["params"]["item_id"]["description"]


def test_the_demo_catalog_brings_the_demos_own_words_and_keeps_what_staff_wrote():
    Capability.objects.filter(name="detail").update(description="Staff's own words")
    call_command("load_demo_catalog", stdout=open("/dev/null", "w"))
    assert descriptions() == {
        "search": "Search the product catalog; name matches rank first",
        "detail": "Staff's own words",
        "cart.add item_id": "Product ID, or the id of one of its variants (from search, browse or detail)",
    }
