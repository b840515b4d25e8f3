"""The site's error pages render without a database and tell a database outage apart."""
import pytest
from django.db import OperationalError
from django.test import RequestFactory

from acme.errors import server_error


def error_page_for(exception):
    try:
        raise exception
    except Exception:
        return server_error(RequestFactory().get("/"))


def test_a_database_outage_is_a_503_with_retry_after():
    response = error_page_for(OperationalError("connection refused"))
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert b"Back in a moment" in response.content


@pytest.mark.parametrize("exception", [RuntimeError("bug"), KeyError("x")])
def test_any_other_error_is_a_plain_500(exception):
    response = error_page_for(exception)
    assert response.status_code == 500 and not response.has_header("Retry-After")
    assert b"Something went wrong" in response.content
