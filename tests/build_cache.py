"""What the tests build from lock files (virtualenvs, node_modules), kept between runs and clones.

Each build is a folder under CACHE_ROOT named after a hash of everything it is built from (the
lock files, the interpreter's or Node's version), so a changed input builds a new one and an
unchanged one is reused, by a fresh clone too. ACME_TEST_CACHE moves the cache (default
~/.cache/acme-tests); removing that folder rebuilds everything. Builds unused for PRUNE_AFTER
are removed when a newer build of the same name is made.

Plain Python only: noxfile.py uses it outside the test environment.
"""
import fcntl
import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

CACHE_ROOT = Path(os.environ.get("ACME_TEST_CACHE") or Path.home() / ".cache" / "acme-tests")
BUILT = ".acme-built"  # written into a build once it is complete; its mtime is the last use
PRUNE_AFTER = 14 * 24 * 3600  # seconds


def content_key(*inputs):
    """A short hash of `inputs`: Paths count by their content, anything else by its text."""
    digest = hashlib.sha256()
    for item in inputs:
        data = item.read_bytes() if isinstance(item, Path) else str(item).encode()
        digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()[:16]


def cache_path(name, *inputs):
    """Where the build `name` of `inputs` lives (CACHE_ROOT/<name>-<key>)."""
    return CACHE_ROOT / f"{name}-{content_key(*inputs)}"


def built(name, inputs, build):
    """The folder of build `name` from `inputs`, made by `build(folder)` if no complete one exists.

    One process builds while the others (pytest-xdist workers, other runs) wait for it; a build
    that did not finish (no BUILT marker) is started again from an empty folder.
    """
    folder = cache_path(name, *inputs)
    CACHE_ROOT.mkdir(parents=True, exist_ok=True)
    with open(f"{folder}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = folder / BUILT
        if not marker.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            marker.touch()
            _prune(name, keep=folder)
        marker.touch()
    return folder


def _prune(name, keep):
    for other in CACHE_ROOT.glob(f"{name}-" + "?" * 16):
        marker = other / BUILT
        if other != keep and marker.exists() and time.time() - marker.stat().st_mtime > PRUNE_AFTER:
            shutil.rmtree(other, ignore_errors=True)


def npm_installed(project):
    """`project`'s node_modules/.bin (tools/<name>: package.json and its lockfile), installed by
    `npm ci` once per lockfile and Node version."""
    import subprocess

    files = [project / "package.json", project / "package-lock.json"]
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout

    def npm_ci(folder):
        for file in files:
            shutil.copy(file, folder / file.name)
        installed = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=folder,
                                   capture_output=True, text=True, timeout=600)
        assert installed.returncode == 0, installed.stderr

    return built(f"npm-{project.name}", [*files, node], npm_ci) / "node_modules" / ".bin"
