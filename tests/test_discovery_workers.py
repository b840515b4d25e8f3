"""Several gunicorn worker processes never serve a stale document after a change."""
import json

import pytest
import requests

from tests.servers import on_every_worker, start_site

WORKERS = 3


@pytest.fixture
def site(tmp_path):
    site = start_site(tmp_path, workers=WORKERS, log_worker_pids=True)
    yield site
    site.stop()


def documents_say(site, requests_per_minute, contact):
    def check():
        body = requests.get(f"{site.url}/.well-known/agents.json", timeout=10).json()
        assert body["rate_limit"]["requests_per_minute"] == requests_per_minute
        assert ("contact" in [c["name"] for c in body["capabilities"]]) == contact
        txt = requests.get(f"{site.url}/.well-known/agents.txt", timeout=10).text
        assert f"Rate-Limit: {requests_per_minute}/minute" in txt and ("Allow: contact" in txt) == contact
    return check


def test_every_worker_serves_the_new_document_right_after_a_change(site):
    on_every_worker(site, documents_say(site, 60, contact=True), WORKERS)

    config = json.loads(site.manage("agents_config", "export").stdout)
    config["rate_limit"]["requests_per_minute"] = 42
    config["capabilities"] = [c for c in config["capabilities"] if c["name"] != "contact"]
    result = site.manage("agents_config", "import", "-", input=json.dumps(config))
    assert result.returncode == 0, result.stderr

    on_every_worker(site, documents_say(site, 42, contact=False), WORKERS)
