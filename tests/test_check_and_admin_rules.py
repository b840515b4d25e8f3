"""Two small wrongs: system check W003's hint is Python a settings file can hold, and admin shows an
integer parameter's bounds as the documents publish them (1, not 1.0)."""
import re

import pytest
from django.contrib.auth import get_user_model
from django.db.utils import ConnectionHandler

from agents_protocol import checks
from agents_protocol.models import Capability

pytestmark = pytest.mark.django_db

def w003_warnings(database, monkeypatch):
    """W003 for a SQLite file configured as `database` says."""
    handler = ConnectionHandler({"default": database})
    monkeypatch.setattr(checks, "connections", handler)
    try:
        return checks.sqlite_ready_for_parallel_writes(None, databases=["default"])
    finally:
        handler.close_all()


def test_the_w003_hint_is_python_that_sets_the_options_it_asks_for(tmp_path, monkeypatch):
    database = {"ENGINE": "django.db.backends.sqlite3", "NAME": str(tmp_path / "shop.sqlite3")}
    [warning] = w003_warnings(database, monkeypatch)
    statement = re.fullmatch(r"Set (.+) \(Django 5\.1\+\), or use PostgreSQL\.", warning.hint).group(1)
    exec(statement, {"DATABASES": {"default": database}})  # a settings file's line
    assert w003_warnings(database, monkeypatch) == []


def test_admin_shows_an_integer_parameters_bounds_as_integers(client):
    admin = get_user_model().objects.create_superuser("staff", "staff@example.com", "pw")
    client.force_login(admin)
    search = Capability.objects.get(name="search")
    page = client.get(f"/admin/agents_protocol/capability/{search.pk}/change/").content.decode()
    assert 'value="10000"' in page and 'value="1"' in page
    assert not re.search(r'name="params-\d+-(minimum|maximum)"[^>]*value="\d+\.0"', page)
