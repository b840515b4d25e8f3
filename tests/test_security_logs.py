"""No secret reaches a log: a whole agent session, its inspector and its human checkout run through
gunicorn (the shipped deploy/gunicorn.conf.py) with access logs and debug logging to files,
Django's logging at DEBUG captured too; neither the session token, the inspector's secret nor the
checkout link's token appears in them, refusals (401, 403, 404) included."""
import logging
import subprocess
import sys

import pytest
import requests

from tests.api_client import API, SESSION_PATH, AgentClient, ok_data
from tests.servers import (
    ROOT,
    SiteProcess,
    _wait_until_serving,
    free_port,
    migrate,
    site_env,
)


@pytest.fixture
def logged_site(tmp_path):
    port, logs = free_port(), {"access": tmp_path / "access.log", "error": tmp_path / "error.log"}
    env = site_env(tmp_path / "data", LOG_LEVEL="DEBUG", HOST="127.0.0.1", PORT=str(port))
    migrate(env)
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", "deploy/gunicorn.conf.py", "--log-level", "debug",
         "--capture-output", "--access-logfile", str(logs["access"]), "--error-logfile", str(logs["error"]),
         "acme.wsgi"],
        cwd=ROOT, env=env,
    )
    site = SiteProcess(url=f"http://127.0.0.1:{port}", env=env, process=process)
    _wait_until_serving(site)
    assert site.manage("load_demo_catalog").returncode == 0
    yield site, logs
    site.stop()


def run_a_session(url):
    """Everything an agent and its human do, refusals included; returns the secrets it used."""
    agent = AgentClient(url)
    created = agent.start_session(agent_name="log-test")
    token, inspect_url = created["session_token"], created["inspect_url"]
    assert requests.get(inspect_url, timeout=10).status_code == 200
    ok_data(requests.get(f"{inspect_url}/state", timeout=10))
    for header in ("X-Session-Token", "X-Agent-Session"):
        ok_data(requests.get(f"{url}{API}/cart/view", headers={header: token}, timeout=10))
    agent.add_to_cart("mug-celadon", 1)
    ok_data(agent.post(f"{API}/cart/add", {"item_id": "mug-celadon"}, headers={"Idempotency-Key": "log-key-1"}))
    assert agent.post(f"{API}/cart/add", {"item_id": "no-such-item"}).status_code == 404
    checkout_url = ok_data(agent.post(f"{API}/checkout"))["checkout_url"]
    assert requests.get(checkout_url, timeout=10).status_code == 200
    assert requests.post(checkout_url, data={"name": "Ada"}, timeout=10).status_code == 403  # no CSRF token
    ok_data(agent.get(f"{API}/order/status"))
    audit_url = ok_data(agent.delete(SESSION_PATH))["audit_url"]
    ok_data(requests.get(audit_url, headers={"Authorization": f"Bearer {token}"}, timeout=10))
    assert requests.get(f"{inspect_url}/artifact", timeout=10).status_code == 200
    assert requests.get(f"{inspect_url}x/state", timeout=10).status_code == 404
    assert requests.get(f"{url}{API}/cart/view", headers={"Authorization": f"Bearer {token}"},
                        timeout=10).status_code == 401
    return {"session token": token, "checkout token": checkout_url.rstrip("/").rsplit("/", 1)[1],
            "inspector secret": inspect_url.rsplit("/", 1)[1]}


def test_neither_the_session_token_nor_the_checkout_token_is_logged(logged_site):
    site, logs = logged_site
    secrets_used = run_a_session(site.url)
    site.stop()  # flush every log

    access, errors = logs["access"].read_text(), logs["error"].read_text()
    # The logs did record the calls, with the checkout paths redacted.
    assert f"{API}/cart/add" in access and "Unauthorized" in errors
    assert '"POST /checkout/[redacted]/ HTTP/1.1" 403' in access
    assert "Forbidden (CSRF cookie not set.): /checkout/[redacted]/" in errors
    assert '"GET /.well-known/agents/inspect/[redacted]/state HTTP/1.1" 200' in access
    assert "Not Found: /.well-known/agents/inspect/[redacted]/state" in errors
    for name, secret in secrets_used.items():
        assert secret not in access, f"{name} in the access log"
        assert secret not in errors, f"{name} in the error log"


def test_runservers_request_lines_are_redacted_too():
    """`manage.py runserver` logs each request line on django.server, which Django gives a
    handler of its own: the site's redaction filter sits on that logger."""
    logger, kept = logging.getLogger("django.server"), KeptMessages()
    logger.addHandler(kept)
    try:
        logger.info('"%s" %s %s', "GET /checkout/" + "k" * 43 + "/ HTTP/1.1", "200", "5120")
    finally:
        logger.removeHandler(kept)
    assert kept.messages == ['"GET /checkout/[redacted]/ HTTP/1.1" 200 5120']


class KeptMessages(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())
