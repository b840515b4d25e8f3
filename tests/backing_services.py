"""Real PostgreSQL and Redis servers for the scale-out tests: loopback only, data in a
temporary directory, started once per test run (per xdist worker) and stopped at its end.

A plugin (pytest.ini: `-p tests.backing_services`): its fixtures are every module's, so that
all share one server each; a module importing a fixture would get one of its own.
scripts/install-system-deps installs both servers from Debian, and `make test` runs it; a
missing binary fails the test with that hint (never a skip). PostgreSQL refuses to run as
root, so as root initdb and the server run as the `postgres` user the package creates.
"""
import os
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
import redis

from tests.servers import free_port

POSTGRES_BIN = Path("/usr/lib/postgresql/15/bin")
INSTALL_HINT = "install it with scripts/install-system-deps (make test runs it)"


@dataclass
class PostgresServer:
    port: int
    root: Path

    def start(self):
        # Durability is not what these tests measure: fsync off keeps them fast.
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        _run([*_as_postgres_user(), POSTGRES_BIN / "pg_ctl", "-D", self.root / "data", "-l", self.root / "server.log",
              "-o", options, "-w", "start"])

    def stop(self):
        """Stop the server (tests of an outage call start() again)."""
        _run([*_as_postgres_user(), POSTGRES_BIN / "pg_ctl", "-D", self.root / "data", "-m", "fast", "-w", "stop"])

    def url(self, database):
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name):
        """A new empty database; returns its URL."""
        with psycopg.connect(self.url("postgres"), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _as_postgres_user():
    """The command prefix that runs PostgreSQL's tools as a non-root user."""
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


def _run(command):
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"{command[0]} failed:\n{result.stdout}\n{result.stderr}"


@pytest.fixture(scope="session")
def postgres_server():
    with running_postgres() as server:
        yield server


@contextmanager
def running_postgres():
    """A fresh PostgreSQL server (a PostgresServer) for the block (noxfile.py uses it too)."""
    if not (POSTGRES_BIN / "initdb").exists():
        pytest.fail(f"PostgreSQL 15 is not installed (no {POSTGRES_BIN}/initdb): {INSTALL_HINT}")
    root = Path(tempfile.mkdtemp(prefix="acme-postgres-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    _run([*_as_postgres_user(), POSTGRES_BIN / "initdb", "-D", root / "data", "-U", "postgres", "--auth=trust",
          "--encoding=UTF8", "--locale=C", "--no-sync"])
    server = PostgresServer(free_port(), root)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root)


@dataclass
class RedisServer:
    """A Redis server (no persistence) on a fixed port, so a test of an outage can stop and restart it."""

    port: int
    root: Path
    process: subprocess.Popen = None

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail(f"redis-server is not installed: {INSTALL_HINT}")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.root)],
            stdout=subprocess.DEVNULL,
        )
        _wait_for_redis(self.url, self.process)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def _redis(prefix):
    server = RedisServer(free_port(), Path(tempfile.mkdtemp(prefix=prefix)))
    server.start()
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.stop()
        shutil.rmtree(server.root)


@pytest.fixture(scope="session")
def redis_server():
    """The URL of a fresh Redis server (no persistence)."""
    for server in _redis("acme-redis-"):
        yield server.url


@pytest.fixture
def own_redis_server():
    """A Redis server of this test alone (a RedisServer), which it may stop and start."""
    yield from _redis("acme-own-redis-")


def _wait_for_redis(url, process, timeout=20):
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"redis-server exited with {process.returncode}")
        try:
            client.ping()
            return
        except redis.ConnectionError:
            time.sleep(0.1)
    pytest.fail("redis-server did not answer in time")
