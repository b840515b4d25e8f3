"""deploy/serve.sh, what `make run` and the image run: gunicorn and the background tasks' worker
beside it, in both shapes: django-tasks-db's worker on the embedded database, RQ's on PostgreSQL
and Redis. An order event enqueued with a committed change reaches the platform's webhook, again
after a failed attempt, while the site serves, and a signal stops every process."""
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
import requests

from tests.platform_server import PlatformServer
from tests.servers import ROOT, free_port, migrate, site_env

ENQUEUE = """
from django.db import transaction
from agents_protocol.outbound.webhooks import enqueue_order_event
with transaction.atomic():
    enqueue_order_event({profile!r}, {{"event_type": "order_placed", "order": {{"id": "ord_7"}}}})
"""


@pytest.fixture
def platform():
    with PlatformServer() as server:
        path = f"/profiles/{uuid.uuid4().hex}.json"
        server.answer(path, body={"ucp": {"version": "2026-01-11", "capabilities": {"dev.ucp.shopping.order": [
            {"version": "2026-01-11", "config": {"webhook_url": server.url("/webhooks/orders")}}]}}})
        server.answer("/webhooks/orders", status=503, body=b"")  # down for the first attempt
        server.profile_url = server.url(path)
        yield server


@pytest.fixture(params=["embedded", "scale-out"])
def shape(request):
    """The environment of each shape: nothing for the embedded one, PostgreSQL and Redis for scale-out."""
    if request.param == "embedded":
        return {}
    return {"DATABASE_URL": request.getfixturevalue("postgres_server").create_database("acme_task_worker"),
            "REDIS_URL": request.getfixturevalue("redis_server")}


@pytest.fixture
def served(tmp_path, shape):
    """deploy/serve.sh on a site of its own, in a process group of its own."""
    env = site_env(tmp_path / "data", HOST="127.0.0.1", PORT=str(free_port()), WORKERS="1", PYTHON=sys.executable,
                   OUTBOUND_ALLOWED_NETWORKS="127.0.0.0/8", TASK_WORKER_INTERVAL="0.1", **shape)
    migrate(env)
    process = subprocess.Popen([str(ROOT / "deploy/serve.sh")], cwd=ROOT, env=env, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: requests.get(f"http://127.0.0.1:{env['PORT']}/healthz/live", timeout=2).ok)
        yield env, process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)


def wait_for(condition, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise AssertionError("not within the time allowed")


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_worker_beside_gunicorn_delivers_and_stops_with_it(served, platform):
    env, process = served
    enqueue = ENQUEUE.format(profile=platform.profile_url)
    enqueued = subprocess.run([sys.executable, "manage.py", "shell", "-c", enqueue], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
    assert enqueued.returncode == 0, enqueued.stderr

    def deliveries():
        return [arrived for arrived in platform.requests if arrived.path == "/webhooks/orders"]

    wait_for(lambda: len(deliveries()) == 1, timeout=10)
    platform.answer("/webhooks/orders", body={"status": "ok"})
    wait_for(lambda: len(deliveries()) == 2, timeout=20)  # the retry, 5 s later
    first, second = deliveries()
    assert first.body == second.body and b'"ord_7"' in second.body and second.headers["Request-Signature"]

    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    wait_for(lambda: not group_alive(process.pid), timeout=10)
