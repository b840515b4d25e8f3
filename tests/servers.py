"""Run the real site under gunicorn in a subprocess, on its own data directory."""
import fcntl
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import requests

from tests.isolation import RUN_DATA_DIR

ROOT = Path(__file__).resolve().parent.parent


def _ports_outside_the_ephemeral_range():
    """The unprivileged ports the kernel never gives an outgoing connection (ip_local_port_range)."""
    low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    return [*range(1024, low), *range(high + 1, 65536)]


SERVER_PORTS = _ports_outside_the_ephemeral_range()


def free_port():
    """A loopback port nothing is bound to, for a server started later (or for nothing to listen
    on). It lies outside the ephemeral range, so no outgoing connection on the machine (a
    benchmark's wrk opens many) can take it before the server binds it or between its restarts;
    binding port 0 would give one of those."""
    while True:
        port = random.choice(SERVER_PORTS)
        if _is_free(port):
            return port


def _is_free(port):
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@dataclass
class SiteProcess:
    url: str
    env: dict
    process: subprocess.Popen
    pid_log: Path | None = None  # start_site(log_worker_pids=True): the pid of the worker that answered, a line each

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


# Settings the tests' own environment must not pass to a site unless a test says so
# (the browser tests set DJANGO_ALLOW_ASYNC_UNSAFE for themselves; check --deploy refuses it).
SITE_SETTINGS = {"DATABASE_URL", "REDIS_URL", "DJANGO_ENV", "TRUSTED_PROXY_COUNT", "SECRET_KEY", "INSTANCE_NAME",
                 "DJANGO_ALLOW_ASYNC_UNSAFE"}


def site_env(data_dir, **extra):
    env = {key: value for key, value in os.environ.items() if key not in SITE_SETTINGS}
    env.update({"DATA_DIR": str(data_dir), "DJANGO_SETTINGS_MODULE": "acme.settings", **extra})
    return env


def start_site(data_dir, workers=2, log_worker_pids=False, app="acme.wsgi", **extra_env):
    """Give data_dir a freshly migrated database (migrate) and serve `app` (a WSGI application's
    gunicorn name) with gunicorn; waits until it answers."""
    env = site_env(data_dir, **extra_env)
    migrate(env)
    pid_log = Path(data_dir) / "worker-pids.log" if log_worker_pids else None
    with bound_socket() as sock:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", app, "--bind", f"fd://{sock.fileno()}",
             "--workers", str(workers), "--log-level", "warning",
             # Several test servers run at once: none may claim gunicorn's shared default control socket.
             "--no-control-socket",
             *(["--access-logfile", str(pid_log), "--access-logformat", "%(p)s"] if pid_log else [])],
            cwd=ROOT, env=env, pass_fds=[sock.fileno()],
        )
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    site = SiteProcess(url=url, env=env, process=process, pid_log=pid_log)
    _wait_until_serving(site)
    return site


def bound_socket():
    """A socket bound to a free loopback port, for gunicorn to inherit (--bind fd://N) and listen on.
    The port is the site's from the moment it is chosen until gunicorn exits: no other process
    can take it meanwhile, so whatever answers on it is this site's gunicorn."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


@contextmanager
def port_nothing_listens_on():
    """A loopback port kept bound, never listening, for the block: connections to it are refused,
    and no server can take it meanwhile."""
    with bound_socket() as sock:
        yield sock.getsockname()[1]


def on_every_worker(site, check, workers, attempts=30):
    """Run `check()` (a request that asserts on its answer) in concurrent bursts until each of the
    site's `workers` gunicorn workers has answered some of them: a worker that never answers is
    never checked, and one sequential client mostly gets the worker that answered it last.
    The site was started with log_worker_pids=True."""
    answered_by = set()
    for _ in range(attempts):
        offset = site.pid_log.stat().st_size
        with ThreadPoolExecutor(max_workers=2 * workers) as pool:
            for _ in pool.map(lambda _: check(), range(6 * workers)):
                pass
        with site.pid_log.open("rb") as log:
            log.seek(offset)
            answered_by |= set(log.read().split())
        if len(answered_by) >= workers:
            return
    raise AssertionError(f"only workers {sorted(answered_by)} of {workers} answered")


def migrate(env):
    """Migrate the site's database. A new one (an SQLite file not there yet, or a PostgreSQL database
    with no tables) becomes a copy of one migrated once in this run for the same installed apps
    (migration_shape); one migrated already is migrated again with `manage.py migrate`."""
    if "DATABASE_URL" in env:
        _migrate_postgresql(env)
        return
    target = Path(env["DATA_DIR"]) / "db.sqlite3"
    if target.exists() and target.stat().st_size:
        _manage_migrate(env)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(_migrated_sqlite(env))) as source, closing(sqlite3.connect(target)) as copy:
        source.backup(copy)


def migration_shape(env):
    """What decides the migrations a site has: its settings module, and Redis, which adds the RQ
    apps (acme/settings.py). No migration reads anything else of the environment."""
    key = f"{env['DJANGO_SETTINGS_MODULE']}-{'redis' if env.get('REDIS_URL') else 'embedded'}"
    return key.replace(".", "_")


def _migrated_sqlite(env):
    """The run's migrated SQLite database of env's shape, made by the first xdist worker needing it."""
    data_dir = RUN_DATA_DIR / f"migrated-{migration_shape(env)}"
    with open(f"{data_dir}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (data_dir / "done").exists():
            data_dir.mkdir(exist_ok=True)
            _manage_migrate({**env, "DATA_DIR": str(data_dir), "CACHE_DIR": str(data_dir / "cache")})
            (data_dir / "done").touch()
    return data_dir / "db.sqlite3"


def _migrate_postgresql(env):
    """A database with no tables is dropped and made again as a copy of the server's database
    migrated for env's shape, itself made at the first such site (CREATE DATABASE ... TEMPLATE)."""
    url = urlsplit(env["DATABASE_URL"])
    with psycopg.connect(env["DATABASE_URL"]) as connection:
        migrated = connection.execute("SELECT to_regclass('django_migrations')").fetchone()[0] is not None
    if migrated:
        _manage_migrate(env)
        return
    template = f"migrated_{migration_shape(env)}".lower()
    with psycopg.connect(url._replace(path="/postgres").geturl(), autocommit=True) as connection:
        if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template]).fetchone():
            connection.execute(f'CREATE DATABASE "{template}"')
            _manage_migrate({**env, "DATABASE_URL": url._replace(path=f"/{template}").geturl()})
        name = url.path.lstrip("/")
        connection.execute(f'DROP DATABASE "{name}"')
        connection.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')


def _manage_migrate(env):
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)


def serve_site(env, workers=2):
    """Serve with gunicorn through the shipped deploy/gunicorn.conf.py, without migrating
    (several instances may share one database), bound to a socket it inherits (bound_socket: its
    --bind wins over the file's HOST and PORT); waits until it answers."""
    env = {**env, "WORKERS": str(workers)}
    with bound_socket() as sock:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", "deploy/gunicorn.conf.py", "--bind", f"fd://{sock.fileno()}",
             "acme.wsgi"],
            cwd=ROOT, env=env, pass_fds=[sock.fileno()],
        )
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    site = SiteProcess(url=url, env=env, process=process)
    _wait_until_serving(site, probe="/healthz")  # answers over plain HTTP in production mode too
    return site


def _wait_until_serving(site, timeout=60, probe="/.well-known/agents.txt"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if site.process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {site.process.returncode}")
        try:
            requests.get(f"{site.url}{probe}", timeout=10)
            return
        except requests.RequestException:
            time.sleep(0.2)
    site.stop()
    raise RuntimeError("gunicorn did not start in time")


def set_rate_limit(site, requests_per_minute):
    """Change requests_per_minute the way an operator would: export, edit, import."""
    config = json.loads(site.manage("agents_config", "export").stdout)
    config["rate_limit"]["requests_per_minute"] = requests_per_minute
    result = site.manage("agents_config", "import", "-", input=json.dumps(config))
    assert result.returncode == 0, result.stderr
