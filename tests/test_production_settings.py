"""DJANGO_ENV=production, system checks in every shipped configuration, the container's entry
point and the README's environment table. Settings are read at import, so everything here
runs in subprocesses with the environment under test."""
import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from tests.servers import ROOT, migrate, serve_site, site_env

REDIS_URL = "redis://127.0.0.1:6379/0"  # never contacted: checks only read the settings
KEY_REFUSED = "DJANGO_ENV=production needs SECRET_KEY in the environment"


def production_env(data_dir, **extra):
    # A mail backend that delivers: the console one fails the deploy checks (tests/test_faults_email.py).
    return site_env(data_dir, DJANGO_ENV="production", SECRET_KEY=secrets.token_urlsafe(50),
                    EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend", **extra)


def manage(env, *args):
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("production, command", [(False, ["check"]), (True, ["check", "--deploy"])])
def test_with_redis_every_check_passes_at_warning_level(tmp_path, production, command):
    env = (production_env if production else site_env)(tmp_path, REDIS_URL=REDIS_URL)
    result = manage(env, *command, "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_behind_the_proxy_it_trusts_every_deploy_check_passes(tmp_path):
    # The settings trust X-Forwarded-Proto only with TRUSTED_PROXY_COUNT, so agents_protocol.W004
    # (a proxy, but every agent counted as its address) cannot fire.
    env = production_env(tmp_path, REDIS_URL=REDIS_URL, TRUSTED_PROXY_COUNT="1")
    result = manage(env, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


@pytest.mark.parametrize("production, command", [(False, ["check"]), (True, ["check", "--deploy"])])
def test_on_one_host_the_only_issue_is_ratelimits_warning_about_its_counters(tmp_path, production, command):
    env = (production_env if production else site_env)(tmp_path)
    result = manage(env, *command)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "(django_ratelimit.W001) cache backend acme.embedded.counters.SharedMemoryCounters is not officially supported" in output
    assert "System check identified 1 issue (0 silenced)." in output


def test_processes_starting_together_on_a_new_data_dir_share_one_secret_key(tmp_path):
    # gunicorn's workers import the settings at once; each used to race to create the key file,
    # and a loser died of FileExistsError.
    env = site_env(tmp_path)
    script = "from django.conf import settings; print(settings.SECRET_KEY)"
    runs = [subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(8)]
    outcomes = [run.communicate(timeout=60) for run in runs]
    assert all(run.returncode == 0 for run in runs), [error for _, error in outcomes]
    keys = {out.strip() for out, _ in outcomes}
    assert len(keys) == 1 and len(keys.pop()) >= 50
    assert oct((tmp_path / "secret_key").stat().st_mode & 0o777) == "0o600"
    assert not [path.name for path in tmp_path.iterdir() if path.name.startswith(".secret_key")]


def test_a_secret_key_file_another_process_created_meanwhile_is_the_one_used(tmp_path, monkeypatch):
    from acme import settings as site_settings

    path = tmp_path / "secret_key"
    path.write_text("k" * 50)
    monkeypatch.setattr(Path, "exists", lambda self: False)  # created after this process looked
    assert site_settings._embedded_secret_key(path) == "k" * 50
    assert [p.name for p in tmp_path.iterdir()] == ["secret_key"]


@pytest.mark.parametrize("secret_key", [None, "django-insecure-" + secrets.token_urlsafe(50), "short-key"],
                         ids=["missing", "django-insecure-prefix", "short-key"])  # one id in every xdist worker
def test_production_refuses_a_missing_or_weak_secret_key(tmp_path, secret_key):
    env = production_env(tmp_path)
    env.pop("SECRET_KEY")
    if secret_key:
        env["SECRET_KEY"] = secret_key
    result = manage(env, "check")
    assert result.returncode != 0
    assert KEY_REFUSED in result.stderr


SHARED_DATABASE = "postgres://acme@127.0.0.1:1/acme"  # never contacted: settings are refused at import
SIGNING_KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="


@pytest.mark.parametrize("missing", ["REDIS_URL", "AUDIT_SIGNING_KEY"])
def test_production_on_a_shared_database_refuses_to_start_without_what_instances_must_share(tmp_path, missing):
    # Each instance would otherwise count rate limits, or sign audit trails, on its own.
    env = production_env(tmp_path, DATABASE_URL=SHARED_DATABASE, REDIS_URL=REDIS_URL, AUDIT_SIGNING_KEY=SIGNING_KEY)
    env.pop(missing)
    result = manage(env, "check")
    assert result.returncode != 0
    assert f"DJANGO_ENV=production with DATABASE_URL needs {missing} in the environment" in result.stderr


def test_production_on_a_shared_database_with_both_passes_the_deploy_checks(tmp_path):
    env = production_env(tmp_path, DATABASE_URL=SHARED_DATABASE, REDIS_URL=REDIS_URL, AUDIT_SIGNING_KEY=SIGNING_KEY)
    result = manage(env, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_unknown_django_env_is_refused(tmp_path):
    result = manage(site_env(tmp_path, DJANGO_ENV="prod"), "check")
    assert result.returncode != 0
    assert "DJANGO_ENV must be 'development' or 'production', not 'prod'" in result.stderr


@pytest.mark.parametrize("name, value, refusal", [
    ("ORDER_RETENTION_DAYS", "-1", "ORDER_RETENTION_DAYS must be at least 1, not -1."),  # would prune live links
    ("CONTACT_RETENTION_DAYS", "0", "CONTACT_RETENTION_DAYS must be at least 1, not 0."),
    ("CART_MAX_QUANTITY", "0", "CART_MAX_QUANTITY must be at least 1, not 0."),
    ("CHECKOUT_TTL_SECONDS", "ten", "CHECKOUT_TTL_SECONDS must be an integer, not 'ten'."),
    ("TRUSTED_PROXY_COUNT", "-1", "TRUSTED_PROXY_COUNT must be at least 0, not -1."),
])
def test_a_number_out_of_its_range_is_refused_at_start(tmp_path, name, value, refusal):
    result = manage(site_env(tmp_path, **{name: value}), "check")
    assert result.returncode != 0 and refusal in result.stderr


def security_settings(env):
    names = ["DEBUG", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS",
             "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD", "WHITENOISE_USE_FINDERS"]
    code = f"import json; from django.conf import settings; print(json.dumps({{n: getattr(settings, n) for n in {names}}}))"
    result = manage(env, "shell", "--verbosity", "0", "--command", code)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_production_turns_on_https_only_cookies_redirect_and_a_year_of_hsts(tmp_path):
    assert security_settings(production_env(tmp_path)) == {
        "DEBUG": False, "SESSION_COOKIE_SECURE": True, "CSRF_COOKIE_SECURE": True, "SECURE_SSL_REDIRECT": True,
        "SECURE_HSTS_SECONDS": 31536000, "SECURE_HSTS_INCLUDE_SUBDOMAINS": True, "SECURE_HSTS_PRELOAD": True,
        "WHITENOISE_USE_FINDERS": False,
    }


def test_hsts_is_configurable(tmp_path):
    env = production_env(tmp_path, HSTS_SECONDS="3600", HSTS_INCLUDE_SUBDOMAINS="false", HSTS_PRELOAD="false")
    found = security_settings(env)
    assert (found["SECURE_HSTS_SECONDS"], found["SECURE_HSTS_INCLUDE_SUBDOMAINS"], found["SECURE_HSTS_PRELOAD"]) == (
        3600, False, False)


@pytest.fixture
def production_site(tmp_path):
    """A production instance as the image runs it: static files collected beforehand into STATIC_ROOT."""
    env = production_env(tmp_path / "data", STATIC_ROOT=str(tmp_path / "collected"))
    assert manage(env, "collectstatic", "--noinput", "-v0").returncode == 0
    migrate(env)
    site = serve_site(env, workers=1)
    yield site
    site.stop()


HTTPS = {"X-Forwarded-Proto": "https"}  # as a TLS-terminating proxy on 127.0.0.1 says (gunicorn trusts it)


def test_a_production_instance_redirects_to_https_and_serves_collected_static_files(production_site):
    url = production_site.url
    for probe in ("/healthz", "/healthz/live"):
        health = requests.get(f"{url}{probe}", allow_redirects=False, timeout=10)
        assert health.status_code == 200, probe  # probes speak plain HTTP to the instance
    redirect = requests.get(f"{url}/", allow_redirects=False, timeout=10)
    assert (redirect.status_code, redirect.headers["Location"]) == (301, f"https{url.removeprefix('http')}/")

    page = requests.get(f"{url}/admin/login/", headers=HTTPS, allow_redirects=False, timeout=10)
    assert page.status_code == 200
    assert page.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert "secure" in page.headers["Set-Cookie"].lower()

    css = requests.get(f"{url}/static/css/site.css", headers=HTTPS, timeout=10)
    assert css.status_code == 200
    assert css.content == (ROOT / "static/css/site.css").read_bytes()


def entrypoint(env, *command):
    env = {**env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"}  # `python` is the venv's
    return subprocess.run([str(ROOT / "deploy/entrypoint.sh"), *command], env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_entrypoint_migrates_then_runs_its_command(tmp_path):
    result = entrypoint(site_env(tmp_path), "python", "manage.py", "showmigrations", "agents_protocol")
    assert result.returncode == 0, result.stderr
    assert "[X] 0001_initial" in result.stdout


def test_the_entrypoint_leaves_migrations_to_a_release_step_when_asked(tmp_path):
    env = site_env(tmp_path, MIGRATE_ON_START="0")
    result = entrypoint(env, "python", "manage.py", "showmigrations", "agents_protocol")
    assert result.returncode == 0, result.stderr
    assert "[ ] 0001_initial" in result.stdout


def test_the_entrypoint_refuses_production_without_a_secret_key(tmp_path):
    env = production_env(tmp_path)
    env.pop("SECRET_KEY")
    result = entrypoint(env, "echo", "server started")
    assert result.returncode != 0
    assert KEY_REFUSED in result.stderr
    assert "server started" not in result.stdout


ENV_READERS = [r'os\.environ\.get\("([A-Z_]+)"', r'env_(?:bool|list|int)\("([A-Z_]+)"', r'\$\{([A-Z_]+)']
CONFIGURED_FILES = ["acme/settings.py", "deploy/gunicorn.conf.py", "deploy/entrypoint.sh", "deploy/serve.sh"]


def test_every_environment_variable_is_documented_in_the_deployment_guide():
    guide = (ROOT / "docs" / "deploy.md").read_text()
    environment = guide[guide.index("\n## Environment\n"):guide.index("\n## Production mode\n")]
    table = "\n".join(line for line in environment.splitlines() if line.startswith("| `"))
    names = {name for path in CONFIGURED_FILES for pattern in ENV_READERS
             for name in re.findall(pattern, (ROOT / path).read_text())}
    assert {"REDIS_URL", "DJANGO_ENV", "TRUSTED_PROXY_COUNT", "GUNICORN_TIMEOUT", "MIGRATE_ON_START"} <= names
    names.add("DATABASE_URL")  # read by dj_database_url
    assert sorted(name for name in names if f"`{name}`" not in table) == []


@pytest.mark.parametrize("value, expected", [(None, "False"), ("true", "True")])
def test_server_side_cursors_can_be_turned_off_for_pgbouncer(tmp_path, value, expected):
    env = site_env(tmp_path, DATABASE_URL=SHARED_DATABASE)
    if value:
        env["DISABLE_SERVER_SIDE_CURSORS"] = value
    code = "from django.conf import settings; print(settings.DATABASES['default']['DISABLE_SERVER_SIDE_CURSORS'])"
    result = manage(env, "shell", "--verbosity", "0", "--command", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected
