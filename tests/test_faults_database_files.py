"""The embedded database file under a real gunicorn: empty, migrated, deleted, corrupt.

/healthz answers 503 until the database is migrated and again once its file is gone (a worker's
connection would otherwise write on into the deleted file, lost at the next restart). A file
that is not a database is an outage on every kind of path: the 503 page for a shop page, and
each JSON-RPC transport's own error (-32603) for the request's id.
"""
import os

import requests

from tests.servers import migrate, serve_site, site_env

TIMEOUT = 30
A2A_VERSION = {"A2A-Version": "1.0"}
NOT_A_DATABASE = b"these bytes are not a database " * 256


def database_check(site):
    response = requests.get(f"{site.url}/healthz", timeout=TIMEOUT)
    return response.status_code, response.json()["checks"]["database"]


def replace_with(path, content):
    staged = path.with_name("staged")
    staged.write_bytes(content)
    os.replace(staged, path)


def test_healthz_is_503_until_migrated_and_again_once_the_file_is_deleted(tmp_path):
    data_dir = tmp_path / "data"
    env = site_env(data_dir)
    site = serve_site(env, workers=1)
    try:
        assert database_check(site) == (503, "failed: OperationalError")  # an empty data directory
        migrate(env)
        assert database_check(site) == (200, "ok")
        for path in data_dir.glob("db.sqlite3*"):
            path.unlink()
        assert database_check(site) == (503, "failed: OperationalError")
        replace_with(data_dir / "db.sqlite3", NOT_A_DATABASE)  # a file put in its place is opened too
        assert database_check(site) == (503, "failed: DatabaseError")
    finally:
        site.stop()


def test_a_database_file_that_is_no_database_is_an_outage_on_every_kind_of_path(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "db.sqlite3").write_bytes(NOT_A_DATABASE)
    site = serve_site(site_env(data_dir), workers=1)
    try:
        page = requests.get(f"{site.url}/", timeout=TIMEOUT)
        assert page.status_code == 503 and page.headers["Retry-After"] == "5"
        assert "Back in a moment" in page.text

        mcp = requests.post(f"{site.url}/mcp", timeout=TIMEOUT, json={
            "jsonrpc": "2.0", "id": 41, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        assert mcp.status_code == 503 and mcp.headers["Retry-After"] == "5"
        assert mcp.json() == {"jsonrpc": "2.0", "id": 41, "error": {
            "code": -32603, "message": "The shop's database is unavailable; retry shortly.",
            "data": {"code": "backend_unavailable", "status": 503}}}

        a2a = requests.post(f"{site.url}/.well-known/agents/a2a", timeout=TIMEOUT, headers=A2A_VERSION, json={
            "jsonrpc": "2.0", "id": "call-7", "method": "SendMessage", "params": {}})
        assert a2a.status_code == 200
        answer = a2a.json()
        assert answer["id"] == "call-7" and answer["error"]["code"] == -32603
        assert answer["error"]["data"][0]["metadata"] == {"code": "backend_unavailable", "status": "503"}
    finally:
        site.stop()
