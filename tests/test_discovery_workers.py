"""Several gunicorn worker processes never serve a stale document after a change."""
import json

import pytest
import requests

from tests.servers import start_site


@pytest.fixture
def site(tmp_path):
    site = start_site(tmp_path, workers=3)
    yield site
    site.stop()


def agents_json_bodies(site, count):
    return [requests.get(f"{site.url}/.well-known/agents.json", timeout=10).json() for _ in range(count)]


def test_every_worker_serves_the_new_document_right_after_a_change(site):
    before = agents_json_bodies(site, 30)
    assert all(body["rate_limit"]["requests_per_minute"] == 60 for body in before)

    config = json.loads(site.manage("agents_config", "export").stdout)
    config["rate_limit"]["requests_per_minute"] = 42
    config["capabilities"] = [c for c in config["capabilities"] if c["name"] != "contact"]
    result = site.manage("agents_config", "import", "-", input=json.dumps(config))
    assert result.returncode == 0, result.stderr

    after = agents_json_bodies(site, 30)
    assert all(body["rate_limit"]["requests_per_minute"] == 42 for body in after)
    assert all("contact" not in [c["name"] for c in body["capabilities"]] for body in after)
    txt = requests.get(f"{site.url}/.well-known/agents.txt", timeout=10).text
    assert "Rate-Limit: 42/minute" in txt and "Allow: contact" not in txt
