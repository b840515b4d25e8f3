"""noxfile.py picks its interpreters and pins as documented, and a missing Python fails the run."""
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import nox
import pytest

import noxfile
from tests.build_cache import cache_path

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fake_pyenv(tmp_path, monkeypatch):
    """A PYENV_ROOT with python3.99 in versions 3.99.2 and 3.99.10, and nothing on PATH."""
    for version in ("3.99.2", "3.99.10"):
        bin_dir = tmp_path / "versions" / version / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / "python3.99").symlink_to(sys.executable)
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    return tmp_path


def test_an_interpreter_missing_from_path_is_taken_from_pyenv_newest_first(fake_pyenv):
    assert noxfile.interpreter("3.99") == str(fake_pyenv / "versions" / "3.99.10" / "bin" / "python3.99")


def test_without_any_interpreter_the_bare_name_is_left_for_nox_to_refuse(fake_pyenv):
    assert noxfile.interpreter("3.98") == "python3.98"
    assert nox.options.error_on_missing_interpreters is True


def test_django_52_gets_the_lowest_versions_pyproject_allows():
    pins = noxfile.lowest_allowed()
    assert "Django==5.2" in pins and "PyNaCl==1.5" in pins
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert all("==" in pin for pin in pins) and len(pins) == len(dependencies)
    assert "djangorestframework==3.16" in pins


def test_django_6_gets_the_site_pins_with_the_newest_django_6():
    pins = noxfile.site_pins(noxfile.NEWEST_DJANGO_6)
    assert [pin for pin in pins if pin.startswith("Django==")] == ["Django==6.1.3"]
    assert "PyNaCl==1.6.2" in pins


def test_a_missing_python_fails_the_session_instead_of_skipping_it(tmp_path):
    env = {**os.environ, "PYENV_ROOT": str(tmp_path), "PATH": str(Path(sys.executable).parent)}
    run = subprocess.run(
        [sys.executable, "-m", "nox", "--envdir", str(tmp_path / "envs"), "-s", "package-django6"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 1, run.stderr
    assert "Python interpreter python3.12 not found" in run.stderr


def test_make_test_package_runs_every_session():
    assert nox.options.sessions == ["package-django52", "package-django6", "package-oscar-sqlite",
                                    "package-oscar-postgresql"]
    makefile = (ROOT / "Makefile").read_text()
    assert f"PACKAGE_SESSIONS := {' '.join(nox.options.sessions)}\n" in makefile


def test_the_virtualenvs_are_reused_until_what_they_are_built_from_changes(tmp_path):
    """nox's envdir is named after the content of BUILT_FROM: one more pin, another folder."""
    copies = []
    for extra in ("", "six==1.17.0\n"):
        root = tmp_path / f"clone{len(copies)}"
        for name in noxfile.BUILT_FROM:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes((ROOT / name).read_bytes() + (extra.encode() if name == "requirements.txt" else b""))
        copies.append(cache_path("nox", *[root / name for name in noxfile.BUILT_FROM]))
    assert Path(nox.options.envdir) == copies[0] != copies[1]
    assert nox.options.reuse_venv == "yes"


def test_the_oscar_sessions_take_oscar_and_playwright_from_the_dev_pins():
    dev = (ROOT / "requirements-dev.txt").read_text().splitlines()
    pins = noxfile.dev_pins("django-oscar", "sorl-thumbnail", "playwright")
    assert sorted(pin.split("==")[0] for pin in pins) == ["django-oscar", "playwright", "sorl-thumbnail"]
    assert set(pins) <= set(dev) and all("==" in pin for pin in pins)
    assert f"Django=={noxfile.DJANGO_52}" in (ROOT / "requirements.txt").read_text().splitlines()
