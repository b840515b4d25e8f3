"""`make run`'s first admin: created once with a password printed once, never twice, never a traceback."""
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def ensure_superuser():
    out = StringIO()
    call_command("ensure_superuser", stdout=out)
    return out.getvalue()


def test_the_first_run_creates_admin_with_a_password_shown_once_and_later_runs_change_nothing():
    first = ensure_superuser()
    password = first.split("Password: ")[1].split()[0]
    assert get_user_model().objects.get(username="admin").check_password(password)
    assert "exists already" in ensure_superuser()
    assert get_user_model().objects.count() == 1


def test_an_account_taking_the_name_meanwhile_is_reported_not_a_traceback():
    get_user_model().objects.create_user("admin", password="a-long-test-password")  # no superuser yet
    assert "an account named 'admin' exists already; nothing was created." in ensure_superuser()
    assert not get_user_model().objects.filter(is_superuser=True).exists()
