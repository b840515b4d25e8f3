"""pyproject.toml builds agents_protocol alone, with every file it needs and honest metadata.

Installing the wheel into a second shop and running that shop's suite on Django 5.2 and 6
is `make test-package` (noxfile.py, tests/second_shop/).
"""
import ast
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.parser import Parser
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
# Not imported by the app, but jsonschema's FormatChecker checks "uri" and "date-time" only with them.
FORMAT_VALIDATORS = {"rfc3986-validator", "rfc3339-validator"}


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The sdist and the wheel `python -m build` makes (the wheel is built from the sdist)."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = out.glob("agents_protocol-*.whl")
    (sdist,) = out.glob("agents_protocol-*.tar.gz")
    return wheel, sdist


@pytest.fixture(scope="module")
def wheel_files(dist):
    with zipfile.ZipFile(dist[0]) as wheel:
        return set(wheel.namelist())


@pytest.fixture(scope="module")
def metadata(dist):
    with zipfile.ZipFile(dist[0]) as wheel:
        (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
        return Parser().parsestr(wheel.read(name).decode())


def tracked_app_files():
    listed = subprocess.run(["git", "ls-files", "agents_protocol"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split()
    return set(listed)


def test_the_wheel_holds_the_app_and_nothing_else(wheel_files):
    tops = {name.split("/")[0] for name in wheel_files}
    assert tops == {"agents_protocol", f"agents_protocol-{VERSION}.dist-info"}
    assert [name for name in wheel_files if "__pycache__" in name or name.endswith(".pyc")] == []


def test_every_file_git_tracks_in_the_app_is_in_the_wheel(wheel_files):
    tracked = tracked_app_files()
    assert "agents_protocol/schemas/agents.schema.json" in tracked
    assert "agents_protocol/migrations/0001_initial.py" in tracked
    assert tracked - wheel_files == set()


def test_the_shipped_schema_is_the_repositorys(dist):
    with zipfile.ZipFile(dist[0]) as wheel:
        shipped = wheel.read("agents_protocol/schemas/agents.schema.json")
    assert shipped == (ROOT / "agents_protocol" / "schemas" / "agents.schema.json").read_bytes()


def test_the_sdist_holds_the_app_its_docs_and_pyproject_only(dist):
    with tarfile.open(dist[1]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    tops = {name.split("/")[0] for name in names}
    assert tops == {"agents_protocol", "docs", "pyproject.toml", "PKG-INFO", ".gitignore"}
    assert {name for name in names if name.startswith("docs/")} == {"docs/index.md"}
    assert tracked_app_files() - names == set()


def test_dependencies_are_ranges(metadata):
    requirements = [Requirement(line) for line in metadata.get_all("Requires-Dist")]
    for requirement in requirements:
        operators = {spec.operator for spec in requirement.specifier}
        assert operators == {">=", "<"}, f"{requirement} should be a range with a lower and an upper bound"
    django = next(r for r in requirements if canonicalize_name(r.name) == "django")
    assert str(django.specifier) in ("<7,>=5.2", ">=5.2,<7")


def imported_distributions(files):
    """The distributions the third-party imports of `files` come from."""
    imported = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"agents_protocol"}
    return {canonicalize_name(d) for module in third_party for d in packages_distributions()[module]}


def declared_dependencies(metadata, extra=None):
    """The Requires-Dist names of the wheel itself (extra None) or of one extra."""
    requirements = map(Requirement, metadata.get_all("Requires-Dist"))
    return {canonicalize_name(r.name) for r in requirements
            if (r.marker is None if extra is None else r.marker is not None and r.marker.evaluate({"extra": extra}))}


def test_every_third_party_import_of_the_app_is_a_declared_dependency(metadata):
    """The app's own imports are its dependencies; a contrib package's are its extra's, on top."""
    contrib = ROOT / "agents_protocol" / "contrib"
    app_files = [path for path in (ROOT / "agents_protocol").rglob("*.py") if contrib not in path.parents]
    distributions = imported_distributions(app_files)
    assert {"pynacl", "djangorestframework"} <= distributions
    assert declared_dependencies(metadata) == distributions | FORMAT_VALIDATORS
    extras = {package.name for package in contrib.iterdir() if (package / "__init__.py").exists()}
    assert extras == set(metadata.get_all("Provides-Extra")) == {"oscar", "gunicorn"}
    for extra in extras:
        own = imported_distributions((contrib / extra).rglob("*.py")) - distributions
        assert own == declared_dependencies(metadata, extra), extra
    assert declared_dependencies(metadata, "oscar") == {"django-oscar"}
    assert declared_dependencies(metadata, "gunicorn") == {"gunicorn"}


def test_metadata_names_the_supported_django_and_python_versions(metadata):
    classifiers = metadata.get_all("Classifier")
    for version in ("5.2", "6.0", "6.1"):
        assert f"Framework :: Django :: {version}" in classifiers
    assert {"Programming Language :: Python :: 3.11", "Programming Language :: Python :: 3.12"} <= set(classifiers)
    assert metadata["Requires-Python"] == ">=3.11"
    assert (metadata["Name"], metadata["Version"]) == ("agents-protocol", VERSION)
    assert "pip install" in metadata.get_payload()  # the long description is docs/index.md
