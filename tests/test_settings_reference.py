"""The settings' declarations (core/conf.py, contrib/oscar/conf.py): read through typed attributes
that follow settings changes, checked by kind, and documented by docs/settings.md."""
from agents_protocol.contrib.oscar.conf import oscar_settings
from agents_protocol.core.conf import app_settings, pipeline_steps
from agents_protocol.http.authentication import AgentSessionAuthentication
from scripts.settings_reference import PAGE, reference_markdown


def test_docs_settings_md_is_the_rendering_of_the_declarations():
    assert PAGE.read_text() == reference_markdown(), (
        "docs/settings.md differs from the declarations: regenerate it with "
        "`.venv/bin/python scripts/settings_reference.py`")


def test_the_reference_names_every_key_with_its_default_once():
    page = reference_markdown()
    for declared_settings in (app_settings, oscar_settings):
        for name, default in declared_settings.defaults().items():
            assert page.count(f"| `{name}` | `{default!r}`".replace("'", '"')) == 1, name


def test_an_attribute_is_the_configured_value_else_the_default_and_follows_changes(settings):
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "MAX_BODY_BYTES": 1024}
    assert app_settings.MAX_BODY_BYTES == 1024
    settings.AGENTS_PROTOCOL = {key: value for key, value in settings.AGENTS_PROTOCOL.items()
                                if key != "MAX_BODY_BYTES"}
    assert app_settings.MAX_BODY_BYTES == 64 * 1024
    settings.AGENTS_PROTOCOL = "not a dict"  # check E004 reports it; the defaults meanwhile
    assert app_settings.DOCUMENT_MAX_AGE == 0


def test_the_pipeline_steps_are_imported_again_after_a_change(settings):
    assert pipeline_steps.AUTHENTICATION_CLASSES == [AgentSessionAuthentication]
    settings.AGENTS_PROTOCOL = {**settings.AGENTS_PROTOCOL, "AUTHENTICATION_CLASSES": []}
    assert pipeline_steps.AUTHENTICATION_CLASSES == []


def test_the_oscar_settings_are_checked_by_their_declaration(settings):
    settings.AGENTS_PROTOCOL_OSCAR = {"ITEM_ID": "sku", "CHECKOUT_TTL_SECONDS": "1800", "CHECKOUT_TTL": 60}
    assert [(error.id, error.msg) for error in oscar_settings.key_errors() + oscar_settings.wrong_value_errors()] == [
        ("agents_protocol_oscar.E001", "AGENTS_PROTOCOL_OSCAR has an unknown key 'CHECKOUT_TTL'."),
        ("agents_protocol_oscar.E002", "AGENTS_PROTOCOL_OSCAR['ITEM_ID'] must be one of pk, upc, not 'sku'."),
        ("agents_protocol_oscar.E002", "AGENTS_PROTOCOL_OSCAR['CHECKOUT_TTL_SECONDS'] must be a whole number of "
                                       "at least 0, not '1800' (e.g. int(os.environ[...]))."),
    ]
    assert oscar_settings.ITEM_ID == "sku"
    settings.AGENTS_PROTOCOL_OSCAR = {}
    assert oscar_settings.ITEM_ID == "pk" and oscar_settings.wrong_value_errors() == []
