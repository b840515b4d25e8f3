"""The official UCP conformance suite (../shared/peers/ucp-conformance) against the site under
gunicorn, as ../shared/peers/UCP.md runs it: every *_test.py passes, none skipped; and every
answer its flows got validates against the specification's JSON schemas and ucp-sdk 0.1.0.

The suite runs once, for the module (one of tests/conftest.py's SERVER_MODULES, which make test
sends whole to one xdist worker): from a copy, with its own virtualenv
(tests/ucp_suite/requirements.txt, kept in the tests' build cache), against a site of its own on
SQLite loaded by `load_ucp_flower_shop` with the suite's data, served by
tests/ucp_suite/recording.py, which records each exchange, with the tasks worker beside it (order
webhooks). The suite's files run RUN_AT_ONCE at a time, each with mock agent and webhook ports
of its own.
"""
import json
import re
import secrets
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from acme.embedded.cache_dir import default_cache_dir
from tests.build_cache import built
from tests.servers import ROOT, free_port, migrate, site_env, start_site
from tests.ucp_suite import schemas

SUITE_SOURCE = ROOT.parent / "shared" / "peers" / "ucp-conformance"
SUITE_DATA = "test_data/flower_shop"
HERE = ROOT / "tests" / "ucp_suite"
REQUIREMENTS = HERE / "requirements.txt"
SUITE_FILES = sorted(path.name for path in SUITE_SOURCE.glob("*_test.py"))
OFFICIAL_FILE_COUNT = 13  # ../shared/peers/UCP.md
RUN_AT_ONCE = 4
FILE_TIMEOUT = 180  # seconds for one file of the suite
# The suite waits 2 s for an order's webhooks: the worker looks for tasks more often than its 1 s default.
WORKER_INTERVAL = "0.1"


def suite_python():
    """The suite's interpreter: a virtualenv of REQUIREMENTS, built once per content of that file."""
    def build(folder):
        subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")], check=True, capture_output=True,
                       timeout=120)
        installed = subprocess.run([str(folder / "venv/bin/pip"), "install", "--quiet", "-r", str(REQUIREMENTS)],
                                   capture_output=True, text=True, timeout=600)
        assert installed.returncode == 0, installed.stderr

    return built("ucp-suite-venv", [REQUIREMENTS, sys.version], build) / "venv" / "bin" / "python"


def serve_flower_shop(folder, record_dir):
    """A site of its own with the suite's flower shop loaded, served by the recording application;
    (the site, its tasks worker, the simulation secret)."""
    data_dir = folder / "site"
    secret = secrets.token_urlsafe(16)
    settings = {"UCP_SIMULATION_SECRET": secret, "OUTBOUND_ALLOWED_NETWORKS": "127.0.0.0/8,::1/128",
                "UCP_RECORD_DIR": str(record_dir)}
    env = site_env(data_dir, **settings)
    migrate(env)
    loaded = subprocess.run([sys.executable, "manage.py", "load_ucp_flower_shop", str(SUITE_SOURCE / SUITE_DATA)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    site = start_site(data_dir, app="tests.ucp_suite.recording:application", **settings)
    worker = subprocess.Popen([sys.executable, "manage.py", "db_worker", "--interval", WORKER_INTERVAL,
                               "--no-startup-delay", "--verbosity", "0"], cwd=ROOT, env=env)
    return site, worker, secret


def distinct_free_ports(count):
    ports = set()
    while len(ports) < count:
        ports.add(free_port())
    return list(ports)


def run_file(python, suite, name, server_url, secret, ports):
    """One file of the suite, its mock agent and webhook servers on `ports`: its exit status and
    what it printed."""
    command = [str(python), name, f"--server_url={server_url}", f"--simulation_secret={secret}",
               f"--conformance_input={SUITE_DATA}/conformance_input.json",
               f"--mock_agent_port={ports[0]}", f"--mock_webhook_port={ports[1]}"]
    started = time.monotonic()
    try:
        ran = subprocess.run(command, cwd=suite, capture_output=True, text=True, timeout=FILE_TIMEOUT)
        returncode, output = ran.returncode, ran.stdout + ran.stderr
    except subprocess.TimeoutExpired as timeout:
        returncode, output = None, f"timed out after {FILE_TIMEOUT} s\n{timeout.stdout or ''}{timeout.stderr or ''}"
    return {"returncode": returncode, "output": output, "seconds": round(time.monotonic() - started, 1)}


def run_suite(folder):
    """The whole suite against a fresh site; {file: result}, the exchanges in folder/exchanges."""
    python = suite_python()
    suite = folder / "suite"
    shutil.copytree(SUITE_SOURCE, suite)
    record_dir = folder / "exchanges"
    record_dir.mkdir()
    site, worker, secret = serve_flower_shop(folder, record_dir)
    ports = distinct_free_ports(2 * len(SUITE_FILES))
    try:
        with ThreadPoolExecutor(max_workers=RUN_AT_ONCE) as pool:
            results = dict(zip(SUITE_FILES, pool.map(
                lambda number: run_file(python, suite, SUITE_FILES[number], site.url, secret,
                                        ports[2 * number:2 * number + 2]),
                range(len(SUITE_FILES)))))
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        site.stop()
        shutil.rmtree(default_cache_dir(folder / "site"), ignore_errors=True)
    return results


@pytest.fixture(scope="module")
def conformance_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ucp-conformance")
    return {"files": run_suite(folder), "exchanges": folder / "exchanges"}


def test_the_official_suite_is_here():
    assert len(SUITE_FILES) == OFFICIAL_FILE_COUNT, f"{SUITE_SOURCE}: {SUITE_FILES}"


@pytest.mark.parametrize("name", SUITE_FILES)
def test_suite_file_passes(conformance_run, name):
    """The file exits 0 having run each of its tests, none skipped."""
    result = conformance_run["files"][name]
    output = result["output"]
    assert result["returncode"] == 0, f"{name} exited {result['returncode']}:\n{output[-6000:]}"
    assert "\nOK" in output and "skipped" not in output, output[-3000:]
    written = len(re.findall(r"^\s+def test_", (SUITE_SOURCE / name).read_text(), re.MULTILINE))
    assert re.search(r"^Ran (\d+) tests? in", output, re.MULTILINE)[1] == str(written)


def recorded_exchanges(folder):
    return [json.loads(line) for path in sorted(folder.glob("*.jsonl")) for line in path.read_text().splitlines()]


def json_body(exchange):
    """The answer's JSON, or None for an answer that is not JSON."""
    try:
        return json.loads(exchange["body"])
    except ValueError:
        return None


def ucp_answers(exchanges):
    """The profile, and (kind, where, body) of each UCP answer: the profile, checkout sessions and
    orders (or the error in their place), and errors of the suite's testing endpoint; body None
    for one that is not JSON. The REST endpoint is the one the profile names."""
    profiles = [json.loads(e["body"]) for e in exchanges if e["path"] == "/.well-known/ucp" and e["status"] == 200]
    assert profiles, "the suite never got the profile"
    profile = profiles[0]
    endpoint = urlsplit(profile["ucp"]["services"]["dev.ucp.shopping"]["rest"]["endpoint"]).path.rstrip("/")
    answers = []
    for exchange in exchanges:
        path, ok = exchange["path"], 200 <= exchange["status"] < 300
        where = f"{exchange['method']} {path} -> {exchange['status']}"
        if path == "/.well-known/ucp":
            kind = "profile" if ok else "error"
        elif path.startswith(f"{endpoint}/checkout-sessions"):
            kind = "checkout" if ok else "error"
        elif path.startswith("/orders/"):
            kind = "order" if ok else "error"
        elif path.startswith("/testing/") and not ok:
            kind = "error"
        else:
            continue
        answers.append((kind, where, json_body(exchange)))
    return profile, answers


@pytest.fixture(scope="module")
def answers(conformance_run):
    return ucp_answers(recorded_exchanges(conformance_run["exchanges"]))


def json_answers(answers):
    """The answers in JSON (the others fail the test above)."""
    return [answer for answer in answers[1] if answer[2] is not None]


def test_the_flows_reached_every_kind_of_answer_in_json_and_no_5xx(conformance_run, answers):
    exchanges = recorded_exchanges(conformance_run["exchanges"])
    assert not [f"{e['method']} {e['path']} -> {e['status']}" for e in exchanges if e["status"] >= 500]
    _, found = answers
    assert {kind for kind, _, _ in found} == {"profile", "checkout", "order", "error"}
    assert not [where for _, where, body in found if body is None]


def test_every_answer_validates_against_the_specs_schemas(answers):
    profile, found = answers[0], json_answers(answers)
    declared = {capability["name"] for capability in profile["ucp"]["capabilities"]}
    validators = {"profile": {"profile": schemas.validator(schemas.PROFILE)},
                  "checkout": schemas.checkout_validators(declared),
                  "order": {"order": schemas.validator(schemas.ORDER)},
                  "error": {"error": schemas.validator(schemas.ERROR)}}
    failures = {}  # "(schema) problem" -> the answers that have it
    for kind, where, body in found:
        for schema, validator in validators[kind].items():
            for problem in schemas.problems(validator, body):
                failures.setdefault(f"({schema}) {problem}", []).append(where)
    assert not failures, "\n".join(f"{problem}: {len(where)} answers, e.g. {where[0]}"
                                    for problem, where in list(failures.items())[:40])


def test_every_answer_parses_with_ucp_sdk(answers):
    lines = "".join(json.dumps({"kind": kind, "where": where, "body": body}) + "\n"
                    for kind, where, body in json_answers(answers))
    checked = subprocess.run([str(suite_python()), str(HERE / "sdk_check.py")], input=lines,
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stderr
    refusals = [json.loads(line) for line in checked.stdout.splitlines()]
    assert not refusals, f"{len(refusals)} refusals, the first ones:\n" + "\n".join(
        f"{r['where']} ({r['model']}) {r['error']}" for r in refusals[:20])
