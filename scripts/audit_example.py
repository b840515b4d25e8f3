"""Capture a real audit artifact for docs/audit.md: `make docs-audit`.

Runs a short agent session against the site under gunicorn on a throwaway database and
writes the sealed artifact and the site's public key into docs/audit-example/.
"""
import json
import sys
import tempfile
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import start_site  # noqa: E402

API = "/.well-known/agents/api"
OUTPUT = ROOT / "docs" / "audit-example"


def run_session(url):
    created = requests.post(f"{url}{API}/session", json={"agent_name": "docs-agent", "purpose": "audit example"},
                            timeout=10).json()["data"]
    auth = {"Authorization": f"Bearer {created['session_token']}"}
    requests.get(f"{url}{API}/search", params={"q": "celadon", "limit": 1}, headers=auth, timeout=10)
    requests.post(f"{url}{API}/cart/add", json={"item_id": "mug-celadon", "quantity": 2}, headers=auth, timeout=10)
    requests.post(f"{url}{API}/cart/add", json={"item_id": "mug-celadon", "quantity": 0}, headers=auth, timeout=10)
    requests.post(f"{url}{API}/contact", json={"name": "Ada", "email": "ada@example.com", "message": "Gift wrap?"},
                  headers=auth, timeout=10)
    ended = requests.delete(f"{url}{API}/session", headers=auth, timeout=10).json()["data"]
    return requests.get(ended["audit_url"], headers=auth, timeout=10).json()["data"]


def main():
    with tempfile.TemporaryDirectory() as data_dir:
        site = start_site(Path(data_dir), workers=1)
        try:
            site.manage("load_demo_catalog")
            artifact = run_session(site.url)
            public_key = requests.get(f"{site.url}/.well-known/agents.json", timeout=10).json()["audit"]["public_key"]
        finally:
            site.stop()
    OUTPUT.mkdir(parents=True, exist_ok=True)
    (OUTPUT / "artifact.json").write_text(json.dumps(artifact, indent=2, ensure_ascii=False) + "\n")
    (OUTPUT / "public_key.txt").write_text(public_key + "\n")
    print(f"Wrote {OUTPUT.relative_to(ROOT)}/artifact.json and public_key.txt")


if __name__ == "__main__":
    main()
