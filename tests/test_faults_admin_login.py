"""The admin's sign-in stops taking guesses: failed sign-ins are limited per client address and
per username (acme/admin_login.py), counted in the shared rate-limit cache."""
import pytest
from django.contrib.auth import get_user_model

from acme.admin_login import FAILED_SIGN_INS

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/"
ALLOWED = int(FAILED_SIGN_INS.split("/")[0])


@pytest.fixture(autouse=True)
def admin_user():
    get_user_model().objects.create_superuser("admin", "admin@example.com", "the-right-password")


def sign_in(client, username, password, address="203.0.113.7"):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/admin/"}, REMOTE_ADDR=address)


def assert_locked_out(response):
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 15 * 60
    assert b"Too many failed sign-ins" in response.content


def test_after_the_allowed_failures_from_one_address_even_the_right_password_is_refused(client):
    for attempt in range(ALLOWED):
        assert sign_in(client, "admin", f"guess-{attempt}").status_code == 200  # the form again, with its error
    assert_locked_out(sign_in(client, "admin", "guess-again"))
    assert_locked_out(sign_in(client, "admin", "the-right-password"))
    assert_locked_out(sign_in(client, "someone-else", "guess"))  # the address is locked, whatever the name


def test_guesses_at_one_username_from_many_addresses_lock_that_username(client):
    for attempt in range(ALLOWED):
        assert sign_in(client, "admin", "guess", address=f"198.51.100.{attempt}").status_code == 200
    assert_locked_out(sign_in(client, "admin", "the-right-password", address="192.0.2.1"))
    assert sign_in(client, "nobody", "guess", address="192.0.2.1").status_code == 200  # other names still answer


def test_a_right_password_within_the_allowance_signs_in(client):
    for attempt in range(ALLOWED - 1):
        sign_in(client, "admin", f"guess-{attempt}")
    signed_in = sign_in(client, "admin", "the-right-password")
    assert signed_in.status_code == 302 and signed_in["Location"] == "/admin/"


def test_the_form_itself_is_not_counted(client):
    for _ in range(ALLOWED + 1):
        assert client.get(LOGIN).status_code == 200
    assert sign_in(client, "admin", "the-right-password").status_code == 302
