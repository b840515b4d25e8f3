"""Instances starting together each run `manage.py migrate` (deploy/entrypoint.sh): they take
turns (acme/management/commands/migrate.py), so none fails on a table another just created."""
import secrets
import subprocess
import sys

import pytest

from tests.servers import ROOT, site_env

TOGETHER = 3


def migrate_together(env):
    runs = [subprocess.Popen([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(TOGETHER)]
    return [(run.wait(timeout=300), run.stderr.read()) for run in runs]


def unapplied(env):
    shown = subprocess.run([sys.executable, "manage.py", "showmigrations", "--plan"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=120, check=True)
    return [line for line in shown.stdout.splitlines() if line.startswith("[ ]")]


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_instances_migrating_at_once_all_succeed(tmp_path, request, database):
    extra = {}
    if database == "postgresql":
        server = request.getfixturevalue("postgres_server")
        extra["DATABASE_URL"] = server.create_database(f"acme_migrate_{secrets.token_hex(4)}")
    env = site_env(tmp_path, **extra)
    outcomes = migrate_together(env)
    assert [code for code, _ in outcomes] == [0] * TOGETHER, [error for _, error in outcomes]
    assert unapplied(env) == []
