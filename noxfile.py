"""The app's own test suite: agents_protocol, built as a wheel, in a second Django shop.

Each session builds the wheel, installs it with one Django into a virtualenv of its own that
holds nothing else but the shop's own requirements (its REST API uses Django REST framework;
no pytest, no Acme site), and runs tests/second_shop's suite with
Django's test runner: real HTTP against a live server of that shop, its admin, its checks.

    package-django52   Python 3.11, Django 5.2 and the *lowest* versions pyproject.toml allows
    package-django6    Python 3.12, the newest Django 6 and the site's pins (requirements.txt)
    package-oscar-sqlite      Python 3.11, the wheel with its [oscar] extra in Kiln & Co, a django-oscar
    package-oscar-postgresql  shop (tests/oscar_shop), whose suite runs on SQLite, and on a PostgreSQL server
                              started for it; the site's pins and requirements-dev.txt's Oscar and Playwright

`make test-package` (part of `make test`) runs the four at once, each in its own nox process.
A missing interpreter fails the run: Python 3.12 is found on PATH or among pyenv's versions
($PYENV_ROOT, default ~/.pyenv).

The virtualenvs are kept in the tests' build cache (tests/build_cache.py: ~/.cache/acme-tests,
or $ACME_TEST_CACHE), in a folder named after the hash of BUILT_FROM: while none of those files
changes, a run (from any clone) reuses them and installs only the freshly built wheel again.
"""
import fcntl
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from contextlib import contextmanager
from pathlib import Path

import nox
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # nox does not put the noxfile's folder on the path

from tests.build_cache import built  # noqa: E402

SECOND_SHOP = ROOT / "tests" / "second_shop"
OSCAR_SHOP = ROOT / "tests" / "oscar_shop"
NEWEST_DJANGO_6 = "6.1.3"
DJANGO_52 = next(line.split("==")[1] for line in (ROOT / "requirements.txt").read_text().splitlines()
                 if line.startswith("Django=="))

nox.options.error_on_missing_interpreters = True
nox.options.download_python = "never"
# What the sessions install is decided by these files (the pins, pyproject.toml's lower bounds and
# extras, NEWEST_DJANGO_6 here); nox itself recreates a virtualenv whose interpreter changed.
BUILT_FROM = ["noxfile.py", "pyproject.toml", "requirements.txt", "requirements-dev.txt",
              "tests/second_shop/requirements.txt", "tests/oscar_shop/requirements.txt"]
nox.options.reuse_venv = "yes"
nox.options.envdir = str(built("nox", [ROOT / name for name in BUILT_FROM], build=lambda folder: None))
nox.options.sessions = ["package-django52", "package-django6", "package-oscar-sqlite", "package-oscar-postgresql"]


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


def install_wheel(session, requirement_of_wheel, shop, constraints, tmp):
    """Build the wheel into `tmp` and install it (`requirement_of_wheel` formats its path, e.g. with an
    extra) with the shop's requirements under `constraints`. A reused virtualenv has those already:
    only the wheel, new each run, is installed again."""
    session.run("python", "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp / "dist"), str(ROOT))
    (wheel,) = (tmp / "dist").glob("agents_protocol-*.whl")
    installed = Path(session.virtualenv.location) / ".requirements-installed"
    if installed.exists():
        session.install("--no-deps", "--force-reinstall", str(wheel))
        return
    constraints_file = tmp / "constraints.txt"
    constraints_file.write_text("\n".join(constraints) + "\n")
    session.install(requirement_of_wheel.format(wheel=wheel), "--requirement", str(shop / "requirements.txt"),
                    "--constraint", str(constraints_file))
    installed.touch()


@contextmanager
def own_virtualenv(session):
    """A temporary folder for the session, holding its (shared) virtualenv meanwhile: a run from
    another clone waits instead of installing its wheel under this one's tests."""
    with open(f"{session.virtualenv.location}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        tmp = Path(tempfile.mkdtemp(prefix=f"acme-{session.name}-"))
        try:
            yield tmp
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def run_second_shop(session, constraints):
    with own_virtualenv(session) as tmp:
        install_wheel(session, "{wheel}", SECOND_SHOP, constraints, tmp)
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


@nox.session(name="package-oscar-sqlite", python=interpreter("3.11"))
def package_oscar_sqlite(session):
    with oscar_shop(session) as tmp:
        session.run(*OSCAR_TEST, env={"DATA_DIR": str(tmp / "sqlite")})


@nox.session(name="package-oscar-postgresql", python=interpreter("3.11"))
def package_oscar_postgresql(session):
    with oscar_shop(session) as tmp, running_postgres() as server:
        server.create_database("kiln")  # the shop's own database; Django's runner adds test_kiln beside it
        session.run(*OSCAR_TEST, env={"DATA_DIR": str(tmp / "postgres"), "POSTGRES_HOST": "127.0.0.1",
                                      "POSTGRES_PORT": str(server.port)})


OSCAR_TEST = ["python", "manage.py", "test", "--verbosity", "2"]


@contextmanager
def oscar_shop(session):
    """Kiln & Co's virtualenv with the wheel, in its folder; yields the session's temporary folder."""
    with own_virtualenv(session) as tmp:
        install_wheel(session, "{wheel}[oscar]", OSCAR_SHOP,
                      site_pins(DJANGO_52) + dev_pins("django-oscar", "sorl-thumbnail", "playwright"), tmp)
        session.run("python", "-m", "pip", "list")
        session.chdir(OSCAR_SHOP)
        yield tmp


def running_postgres():
    """The site's own PostgreSQL helper (tests/backing_services.py), for the block."""
    from tests.backing_services import running_postgres as postgres

    return postgres()
