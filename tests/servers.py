"""Run the real site under gunicorn in a subprocess, on its own data directory."""
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class SiteProcess:
    url: str
    env: dict
    process: subprocess.Popen

    def manage(self, *args, input=None):
        """Run manage.py against this server's database; returns the CompletedProcess."""
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT, env=self.env, input=input, capture_output=True, text=True, timeout=120,
        )

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def site_env(data_dir, **extra):
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update({"DATA_DIR": str(data_dir), "DJANGO_SETTINGS_MODULE": "acme.settings", **extra})
    return env


def start_site(data_dir, workers=2, **extra_env):
    """Migrate a fresh database in data_dir and serve it with gunicorn; waits until it answers."""
    port = free_port()
    env = site_env(data_dir, **extra_env)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "acme.wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", str(workers), "--log-level", "warning",
         # Several test servers run at once: none may claim gunicorn's shared default control socket.
         "--no-control-socket"],
        cwd=ROOT, env=env,
    )
    site = SiteProcess(url=f"http://127.0.0.1:{port}", env=env, process=process)
    _wait_until_serving(site)
    return site


def _wait_until_serving(site, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if site.process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {site.process.returncode}")
        try:
            requests.get(f"{site.url}/.well-known/agents.txt", timeout=10)
            return
        except requests.RequestException:
            time.sleep(0.2)
    site.stop()
    raise RuntimeError("gunicorn did not start in time")
