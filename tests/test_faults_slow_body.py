"""A body that stops arriving, against gunicorn as `make run` and the image run it
(deploy/gunicorn.conf.py): 408 in the envelope within seconds on every transport and on a
page, instead of a worker held until gunicorn's 30-second timeout replaces it with a 500."""
import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
import requests

from agents_protocol.contrib.gunicorn.bodies import READ_TIMEOUT_SECONDS
from tests.api_client import SESSION_PATH
from tests.servers import migrate, serve_site, site_env

STALLED_PATHS = [SESSION_PATH, "/mcp", "/.well-known/agents/a2a", "/admin/login/"]
SENT = b'{"agent_name": '  # 15 of the 1000 bytes announced


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    env = site_env(tmp_path_factory.mktemp("slow-body"))
    migrate(env)
    served = serve_site(env, workers=len(STALLED_PATHS))
    yield served
    served.stop()


def stalled_request(site, path):
    """POST announcing 1000 bytes, 15 sent, then silence: (seconds until answered, status, body)."""
    address = urlsplit(site.url)
    started = time.monotonic()
    with socket.create_connection((address.hostname, address.port), timeout=60) as client:
        client.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       f"Accept: application/json\r\nA2A-Version: 1.0\r\nContent-Length: 1000\r\n\r\n".encode() + SENT)
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return time.monotonic() - started, head.split(b"\r\n")[0].decode(), json.loads(body)


def test_a_body_that_stops_arriving_is_408_in_the_envelope_within_seconds_everywhere(site):
    with ThreadPoolExecutor(max_workers=len(STALLED_PATHS)) as pool:
        answers = list(pool.map(lambda path: stalled_request(site, path), STALLED_PATHS))
    for path, (seconds, status_line, body) in zip(STALLED_PATHS, answers):
        assert status_line == "HTTP/1.1 408 Request Timeout", (path, status_line, body)
        assert body == {"ok": False, "code": "invalid_request", "error": (
            f"The request body stopped arriving for {READ_TIMEOUT_SECONDS} seconds; send the whole body with the "
            "request.")}
        assert READ_TIMEOUT_SECONDS <= seconds < READ_TIMEOUT_SECONDS + 5, (path, seconds)


def test_a_body_that_arrives_is_read_as_before(site):
    created = requests.post(f"{site.url}{SESSION_PATH}", json={"agent_name": "prompt"}, timeout=30)
    assert created.status_code == 201 and created.json()["ok"] is True
