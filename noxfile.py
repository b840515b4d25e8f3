"""The app's own test suite: agents_protocol, built as a wheel, in a second Django shop.

Each session builds the wheel, installs it with one Django into a fresh virtualenv that
holds nothing else but the shop's own requirements (its REST API uses Django REST framework;
no pytest, no Acme site), and runs tests/second_shop's suite with
Django's test runner: real HTTP against a live server of that shop, its admin, its checks.

    package-django52   Python 3.11, Django 5.2 and the *lowest* versions pyproject.toml allows
    package-django6    Python 3.12, the newest Django 6 and the site's pins (requirements.txt)
    package-oscar      Python 3.11, the wheel with its [oscar] extra in Kiln & Co, a django-oscar shop
                       (tests/oscar_shop), whose suite runs on SQLite, then on a PostgreSQL server
                       started for it; the site's pins and requirements-dev.txt's Oscar and Playwright

`make test-package` (part of `make test`) runs all three. A missing interpreter fails the run:
Python 3.12 is found on PATH or among pyenv's versions ($PYENV_ROOT, default ~/.pyenv).
"""
import glob
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nox
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent
SECOND_SHOP = ROOT / "tests" / "second_shop"
OSCAR_SHOP = ROOT / "tests" / "oscar_shop"
NEWEST_DJANGO_6 = "6.1.3"
DJANGO_52 = next(line.split("==")[1] for line in (ROOT / "requirements.txt").read_text().splitlines()
                 if line.startswith("Django=="))

nox.options.error_on_missing_interpreters = True
nox.options.download_python = "never"
nox.options.reuse_venv = "no"
nox.options.envdir = str(ROOT / ".venv" / "nox")  # ignored by git, removed by `make clean`
nox.options.sessions = ["package-django52", "package-django6", "package-oscar"]


def interpreter(version):
    """The path of a working python<version>: on PATH, else pyenv's newest <version>.x.

    Returns the bare name when there is none, so nox stops with "interpreter not found".
    """
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    installed = sorted(glob.glob(str(pyenv_root / "versions" / f"{version}.*" / "bin" / f"python{version}")),
                       key=lambda path: [int(part) for part in Path(path).parts[-3].split(".")])
    for candidate in [shutil.which(f"python{version}"), *reversed(installed)]:
        # A pyenv shim is on PATH even when that version is not selected; it then fails to run.
        if candidate and subprocess.run([candidate, "-c", "pass"], capture_output=True, timeout=30).returncode == 0:
            return candidate
    return f"python{version}"


def lowest_allowed():
    """`name==lower bound` for every dependency in pyproject.toml."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = []
    for requirement in map(Requirement, dependencies):
        lower = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        assert len(lower) == 1, f"{requirement} needs exactly one lower bound"
        pins.append(f"{requirement.name}=={lower[0]}")
    return pins


def site_pins(django):
    """requirements.txt's pins, with `django` instead of the site's Django."""
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return [line for line in lines if line and not line.startswith(("#", "Django=="))] + [f"Django=={django}"]


def dev_pins(*names):
    """requirements-dev.txt's pins of `names`."""
    lines = (ROOT / "requirements-dev.txt").read_text().splitlines()
    return [line for line in lines if line.split("==")[0] in names]


def install_wheel(session, requirement_of_wheel, shop, constraints):
    """Build the wheel, install it (`requirement_of_wheel` formats its path, e.g. with an extra)
    and the shop's requirements under `constraints`; returns the session's temporary directory."""
    tmp = Path(session.create_tmp()).resolve()
    constraints_file = tmp / "constraints.txt"
    constraints_file.write_text("\n".join(constraints) + "\n")
    session.run("python", "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp / "dist"), str(ROOT))
    (wheel,) = (tmp / "dist").glob("agents_protocol-*.whl")
    session.install(requirement_of_wheel.format(wheel=wheel), "--requirement", str(shop / "requirements.txt"),
                    "--constraint", str(constraints_file))
    return tmp


def run_second_shop(session, constraints):
    tmp = install_wheel(session, "{wheel}", SECOND_SHOP, constraints)
    session.run("python", "-m", "pip", "list")
    session.chdir(SECOND_SHOP)
    # Deprecation warnings fail the run: what Django 6 deprecates shows up before it is removed.
    session.run("python", "-W", "error::DeprecationWarning", "-W", "error::PendingDeprecationWarning",
                "manage.py", "test", "--verbosity", "2", env={"DATA_DIR": str(tmp / "data")})


@nox.session(name="package-django52", python=interpreter("3.11"))
def package_django52(session):
    run_second_shop(session, lowest_allowed())


@nox.session(name="package-django6", python=interpreter("3.12"))
def package_django6(session):
    run_second_shop(session, site_pins(NEWEST_DJANGO_6))


@nox.session(name="package-oscar", python=interpreter("3.11"))
def package_oscar(session):
    tmp = install_wheel(session, "{wheel}[oscar]", OSCAR_SHOP,
                        site_pins(DJANGO_52) + dev_pins("django-oscar", "sorl-thumbnail", "playwright"))
    session.run("python", "-m", "pip", "list")
    session.chdir(OSCAR_SHOP)
    test = ["python", "manage.py", "test", "--verbosity", "2"]
    session.run(*test, env={"DATA_DIR": str(tmp / "sqlite")})
    with running_postgres() as server:
        server.create_database("kiln")  # the shop's own database; Django's runner adds test_kiln beside it
        session.run(*test, env={"DATA_DIR": str(tmp / "postgres"), "POSTGRES_HOST": "127.0.0.1",
                                "POSTGRES_PORT": str(server.port)})


def running_postgres():
    """The site's own PostgreSQL helper (tests/backing_services.py), for the block."""
    sys.path.insert(0, str(ROOT))
    from tests.backing_services import running_postgres as postgres

    return postgres()
