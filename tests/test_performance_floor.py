"""The benchmark's floor, GET /bench/floor, exists only with BENCH_FLOOR=1 (make bench sets it)."""
import importlib

import pytest
from django.urls import clear_url_caches

import acme.urls

pytestmark = pytest.mark.django_db


@pytest.fixture
def urls_with_the_floor(settings):
    settings.BENCH_FLOOR = True
    importlib.reload(acme.urls)
    clear_url_caches()
    yield
    settings.BENCH_FLOOR = False
    importlib.reload(acme.urls)
    clear_url_caches()


def test_the_floor_is_not_served_by_default(client):
    assert client.get("/bench/floor").status_code == 404


def test_with_bench_floor_it_answers_a_constant_json_body(client, urls_with_the_floor):
    response = client.get("/bench/floor")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"ok": True}
