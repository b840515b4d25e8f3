"""Contact messages never go to the log unnoticed: `check --deploy` fails while EMAIL_BACKEND is
Django's console backend, the default, which prints each message (Reply-To, name, text) to
stdout. Settings are read at import, so the checks run in subprocesses."""
import secrets
import subprocess
import sys

import pytest

from tests.servers import ROOT, site_env

SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"


def deploy_check(tmp_path, **env):
    env = site_env(tmp_path, DJANGO_ENV="production", SECRET_KEY=secrets.token_urlsafe(50), **env)
    return subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("backend", [None, "django.core.mail.backends.console.EmailBackend"])
def test_the_console_email_backend_fails_the_deploy_check(tmp_path, backend):
    result = deploy_check(tmp_path, **({"EMAIL_BACKEND": backend} if backend else {}))
    assert result.returncode != 0
    assert "(acme.E001) EMAIL_BACKEND is the console backend" in result.stderr


def test_a_delivering_email_backend_passes_it(tmp_path):
    result = deploy_check(tmp_path, EMAIL_BACKEND=SMTP_BACKEND)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "acme.E001" not in result.stdout + result.stderr
