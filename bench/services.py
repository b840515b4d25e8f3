"""PostgreSQL and Redis for the scale-out benchmark: loopback only, data in a temporary
directory, stopped at the end (the way tests/backing_services.py starts them for the tests).
PostgreSQL refuses to run as root, so as root its tools run as the `postgres` user.
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

POSTGRES_BIN = Path("/usr/lib/postgresql/15/bin")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def unavailable_reason():
    """Why the scale-out run cannot happen here, or None when it can."""
    if not (POSTGRES_BIN / "initdb").exists():
        return f"no PostgreSQL 15 in {POSTGRES_BIN} (scripts/install-system-deps installs it)"
    if shutil.which("redis-server") is None:
        return "no redis-server (scripts/install-system-deps installs it)"
    return None


def _run(command):
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    subprocess.run([*as_user, *map(str, command)], check=True, capture_output=True, timeout=120)


@contextmanager
def postgres():
    """The URL of a fresh database on a new PostgreSQL server (durability off: fsync is not measured)."""
    root = Path(tempfile.mkdtemp(prefix="acme-bench-postgres-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    data, port = root / "data", free_port()
    _run([POSTGRES_BIN / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8",
          "--locale=C", "--no-sync"])
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
    _run([POSTGRES_BIN / "pg_ctl", "-D", data, "-l", root / "server.log", "-o", options, "-w", "start"])
    try:
        _run([POSTGRES_BIN / "createdb", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "acme"])
        yield f"postgres://postgres@127.0.0.1:{port}/acme"
    finally:
        _run([POSTGRES_BIN / "pg_ctl", "-D", data, "-m", "fast", "-w", "stop"])
        shutil.rmtree(root)


@contextmanager
def redis():
    """The URL of a new Redis server without persistence."""
    root = Path(tempfile.mkdtemp(prefix="acme-bench-redis-"))
    port = free_port()
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(root)],
        stdout=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port, process)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(root)


def _wait_for_port(port, process, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"redis-server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("redis-server did not answer in time")
