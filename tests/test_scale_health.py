"""/healthz over real HTTP: 200 when the database and the cache answer, 503 JSON naming the
one that does not (an unreachable PostgreSQL, an unreachable Redis); /healthz/live 200 either way. The embedded
database is migrated first: the check wants every migration applied (tests/test_faults_health.py)."""
import pytest
import requests

from tests.servers import migrate, port_nothing_listens_on, serve_site, site_env


def healthz(site, path="/healthz"):
    response = requests.get(f"{site.url}{path}", timeout=30)
    assert response.headers["Content-Type"] == "application/json"
    assert response.headers["Cache-Control"] == "no-store"
    body = response.json()
    assert body.pop("instance") == "probed-instance"
    return response.status_code, body


@pytest.fixture
def serve(tmp_path):
    started = []

    def serve(**env):
        env = site_env(tmp_path, INSTANCE_NAME="probed-instance", **env)
        if "DATABASE_URL" not in env:
            migrate(env)
        started.append(serve_site(env, workers=1))
        return started[-1]

    yield serve
    for site in started:
        site.stop()


def test_the_embedded_default_is_healthy(serve):
    assert healthz(serve()) == (200, {"ok": True, "checks": {"database": "ok", "cache": "ok"}})


def test_an_unreachable_database_is_503(serve):
    with port_nothing_listens_on() as port:
        site = serve(DATABASE_URL=f"postgres://acme@127.0.0.1:{port}/acme")
        assert healthz(site) == (503, {"ok": False, "checks": {"database": "failed: OperationalError", "cache": "ok"}})


def test_an_unreachable_cache_is_503_while_the_process_is_live(serve):
    with port_nothing_listens_on() as port:
        site = serve(REDIS_URL=f"redis://127.0.0.1:{port}/0")
        assert healthz(site) == (503, {"ok": False, "checks": {"database": "ok", "cache": "failed: ConnectionError"}})
        assert healthz(site, "/healthz/live") == (200, {"ok": True})
