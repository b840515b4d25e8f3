"""A pytest plugin (pytest.ini: `-p tests.isolation`): each test run on a data directory of its own.

Loaded before pytest-django imports the settings, so DATA_DIR (and with it the test database,
DATA_DIR/test_db.sqlite3, and the caches' directory in shared memory, which is named after
DATA_DIR) belongs to this run alone: two runs at once, or a run beside `make run` on var/,
never share a database file or rate-limit counters. A DATA_DIR given in the environment is
used as it is. Under pytest-xdist each worker process works in a subdirectory of the run's
DATA_DIR named after it (gw0, gw1, ...), so the workers share no database, cache or key file.

When the run ends, the directory goes, and so do the caches in shared memory of every site the
tests started on a data directory under pytest's temporary directory: /dev/shm is memory, and
nothing else removes them.
"""
import os
import shutil
import tempfile
from pathlib import Path

CREATED = None if "DATA_DIR" in os.environ else tempfile.mkdtemp(prefix="acme-tests-")
if CREATED:
    os.environ["DATA_DIR"] = CREATED
RUN_DATA_DIR = Path(os.environ["DATA_DIR"])  # the whole run's, shared by its xdist workers
if "PYTEST_XDIST_WORKER" in os.environ:  # set by xdist before a worker loads its plugins
    CREATED = str(Path(os.environ["DATA_DIR"]) / os.environ["PYTEST_XDIST_WORKER"])
    os.makedirs(CREATED, exist_ok=True)
    os.environ["DATA_DIR"] = CREATED


def pytest_unconfigure(config):
    from acme.embedded.cache_dir import default_cache_dir

    data_dirs = [path for path in config._tmp_path_factory.getbasetemp().rglob("*") if path.is_dir()]
    if CREATED:
        data_dirs.append(Path(CREATED))
    for data_dir in data_dirs:
        shutil.rmtree(default_cache_dir(data_dir), ignore_errors=True)
    if CREATED:
        shutil.rmtree(CREATED, ignore_errors=True)
