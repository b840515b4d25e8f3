"""The scale-out shape as deployed (docs/deploy.md): Debian's nginx terminating TLS in front of
two instances on one PostgreSQL and one Redis, with TRUSTED_PROXY_COUNT=1.

Each instance starts the way the Docker image starts it. The base image (python:3.11-slim)
cannot be pulled here, so the fixture builds what the Dockerfile builds on top of it, in a
temporary directory: the checkout copied without what .dockerignore leaves out (`COPY . .`), a
virtualenv of Debian's Python 3.11 with requirements.txt (`RUN pip install`: built once per
requirements.txt in the tests' build cache, tests/build_cache.py, and copied), the app's bytecode
(`RUN python -m compileall`), collectstatic.
Then, as a user that is not root and with the environment the Dockerfile declares (read from
it, so the two cannot drift), the image's entry point runs a release step's migrate and the
image's command.

Clients come from different loopback addresses (127.0.0.2, 127.0.0.3 …): nginx writes the
address it saw into X-Forwarded-For, the only entry the instances trust, so each client's
limit is exact across both instances, and a header the client forges does not help it. The
proxy settings are the shipped deploy/nginx/proxy.conf; the test's nginx adds only `X-Upstream`
(the instance that answered), so a test can see that its calls really went to both.
"""
import base64
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from requests.adapters import HTTPAdapter

from agents_protocol.audit import verify
from tests.api_client import API, SESSION_PATH, assert_error, ok_data
from tests.build_cache import built
from tests.bursts import assert_exact, burst, fresh_window
from tests.servers import ROOT, free_port

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
IMAGE_PYTHON = "/usr/bin/python3.11"  # Debian's: readable by every user, unlike a pyenv under /root
UNPRIVILEGED_USER = "nobody"  # when the tests run as root; otherwise the tests' own user
ITEM = "mug-celadon"
INSTANCES = ("instance-a", "instance-b")
TIMEOUT = 30


def build_image(root):
    """The Dockerfile's steps after FROM, into root/app and root/venv (both readable by all)."""
    ignored = [line.strip().removeprefix("**/") for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    shutil.copytree(ROOT, root / "app", ignore=shutil.ignore_patterns(*ignored))
    copy_virtualenv(image_virtualenv(), root / "venv")
    subprocess.run([str(root / "venv/bin/python"), "-m", "compileall", "-q", "."], cwd=root / "app", check=True)
    subprocess.run(["chmod", "-R", "a+rX", str(root)], check=True)
    return root / "app"


def image_virtualenv():
    """A virtualenv of IMAGE_PYTHON with requirements.txt, from the build cache."""
    version = subprocess.run([IMAGE_PYTHON, "--version"], capture_output=True, text=True, check=True).stdout

    def build(folder):
        subprocess.run([IMAGE_PYTHON, "-m", "venv", str(folder / "venv")], check=True, capture_output=True, timeout=120)
        subprocess.run([str(folder / "venv/bin/pip"), "install", "--quiet", "-r", str(ROOT / "requirements.txt")],
                       check=True, capture_output=True, timeout=600)

    return built("image-venv", [ROOT / "requirements.txt", version], build) / "venv"


def copy_virtualenv(source, target):
    """`source` at `target`, where the image's user can read it (the cache may be under root's home).
    A virtualenv finds itself from its interpreter's path; only its scripts name the old one."""
    shutil.copytree(source, target, symlinks=True)
    for script in (target / "bin").iterdir():
        if script.is_file() and not script.is_symlink() and script.read_bytes().startswith(f"#!{source}/".encode()):
            script.write_bytes(script.read_bytes().replace(str(source).encode(), str(target).encode(), 1))


def image_environment():
    """The ENV instruction of the Dockerfile, as a dict."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    instruction = re.search(r"^ENV\s+(.+)$", text, re.MULTILINE).group(1)
    return dict(pair.split("=", 1) for pair in instruction.split())


def unprivileged():
    """subprocess options that run a command as UNPRIVILEGED_USER when the tests run as root."""
    if os.geteuid() != 0:
        return {}
    user = pwd.getpwnam(UNPRIVILEGED_USER)
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


def owned_by_unprivileged(path):
    if os.geteuid() == 0:
        user = pwd.getpwnam(UNPRIVILEGED_USER)
        os.chown(path, user.pw_uid, user.pw_gid)
    return path


def instance_env(root, name, shared):
    """The image's environment, on loopback, with this deployment's secrets and services."""
    data_dir = root / name
    data_dir.mkdir()
    owned_by_unprivileged(data_dir)
    env = {"PATH": f"{root / 'venv/bin'}:/usr/local/bin:/usr/bin:/bin", "HOME": str(data_dir), **image_environment()}
    env.update(shared, DATA_DIR=str(data_dir), STATIC_ROOT=str(root / "static"), INSTANCE_NAME=name,
               HOST="127.0.0.1", PORT=str(free_port()),
               MIGRATE_ON_START="0", TRUSTED_PROXY_COUNT="1", ALLOWED_HOSTS="127.0.0.1",
               CSRF_TRUSTED_ORIGINS="https://127.0.0.1")
    return env


def entrypoint(app, env, *command, **options):
    """`docker run <image> <command>`: the image's entry point, as the image's user."""
    return subprocess.run([str(app / "deploy/entrypoint.sh"), *command], env=env, cwd=app, capture_output=True,
                          text=True, timeout=300, **unprivileged(), **options)


def start_instance(app, env):
    """`docker run <image>`: the entry point with the image's default command (its CMD)."""
    command = ["deploy/serve.sh"]
    with open(Path(env["DATA_DIR"]) / "gunicorn.log", "ab") as log:  # what a container's log would show
        process = subprocess.Popen([str(app / "deploy/entrypoint.sh"), *command], env=env, cwd=app,
                                   stdout=log, stderr=subprocess.STDOUT, **unprivileged())
    wait_until(lambda: requests.get(f"http://127.0.0.1:{env['PORT']}/healthz", timeout=5).ok, process)
    return process


def wait_until(ready, process, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"exited with {process.returncode}")
        try:
            if ready():
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise RuntimeError("did not start in time")


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()


NGINX_CONF = """
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 512; }}
http {{
    include {log_conf};
    access_log {root}/access.log acme_redacted;
    client_body_temp_path {root}/body;
    proxy_temp_path {root}/proxy;
    fastcgi_temp_path {root}/fastcgi;
    uwsgi_temp_path {root}/uwsgi;
    scgi_temp_path {root}/scgi;
    upstream acme {{
        server 127.0.0.1:{port_a};
        server 127.0.0.1:{port_b};
    }}
    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {root}/proxy.crt;
        ssl_certificate_key {root}/proxy.key;
        location / {{
            include {proxy_conf};
            add_header X-Upstream $upstream_addr always;
        }}
    }}
}}
"""


def self_signed_certificate(root):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(root / "proxy.key"), "-out", str(root / "proxy.crt")],
                   check=True, capture_output=True, timeout=60)
    return root / "proxy.crt"


def start_nginx(root, port, upstream_ports):
    conf = root / "nginx.conf"
    conf.write_text(NGINX_CONF.format(root=root, port=port, port_a=upstream_ports[0], port_b=upstream_ports[1],
                                      proxy_conf=ROOT / "deploy/nginx/proxy.conf",
                                      log_conf=ROOT / "deploy/nginx/redacted-log.conf"))
    return subprocess.Popen([NGINX, "-p", str(root), "-c", str(conf), "-g", "daemon off;"])


@pytest.fixture(scope="module")
def deployment(postgres_server, redis_server):
    if not os.path.exists(NGINX):
        pytest.fail("nginx is not installed: install it with scripts/install-system-deps (make test runs it)")
    root = Path(tempfile.mkdtemp(prefix="acme-proxied-"))
    app = build_image(root)
    shared = {
        "DATABASE_URL": postgres_server.create_database("acme_proxied"),
        "REDIS_URL": redis_server,
        "SECRET_KEY": secrets.token_urlsafe(50),
        "AUDIT_SIGNING_KEY": base64.b64encode(secrets.token_bytes(32)).decode(),
    }
    envs = [instance_env(root, name, shared) for name in INSTANCES]
    # What the image's build and a release step do, before any instance takes traffic.
    owned_by_unprivileged(root)  # STATIC_ROOT goes here
    for command in (["python", "manage.py", "collectstatic", "--noinput", "-v0"],
                    ["python", "manage.py", "migrate", "--noinput", "-v0"],
                    ["python", "manage.py", "load_demo_catalog"]):
        result = entrypoint(app, envs[0], *command)
        assert result.returncode == 0, result.stderr
    instances = [start_instance(app, env) for env in envs]
    certificate = self_signed_certificate(root)
    port = free_port()
    proxy = start_nginx(root, port, [env["PORT"] for env in envs])
    url = f"https://127.0.0.1:{port}"
    wait_until(lambda: requests.get(f"{url}/healthz", verify=certificate, timeout=5).ok, proxy)
    yield {"url": url, "certificate": certificate, "app": app, "envs": envs, "instances": instances,
           "access_log": root / "access.log"}
    stop(proxy)
    for instance in instances:
        stop(instance)
    shutil.rmtree(root, ignore_errors=True)


class SourceAddressAdapter(HTTPAdapter):
    """Connect from one loopback address: a client of its own, as the proxy sees it."""

    def __init__(self, address):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, source_address=(self.address, 0), **kwargs)


def client_from(deployment, address):
    """A requests.Session that connects from `address`, trusting the proxy's certificate."""
    session = requests.Session()
    session.mount("https://", SourceAddressAdapter(address))
    session.trust_env = False  # else REQUESTS_CA_BUNDLE from the environment overrides `verify`
    session.verify = str(deployment["certificate"])
    return session


def fresh_client(deployment):
    """A client from a loopback address no other test used."""
    return client_from(deployment, f"127.0.{secrets.randbelow(200) + 10}.{secrets.randbelow(250) + 2}")


def set_rate_limit(deployment, requests_per_minute):
    app, env = deployment["app"], deployment["envs"][0]
    config = json.loads(entrypoint(app, env, "python", "manage.py", "agents_config", "export").stdout)
    config["rate_limit"]["requests_per_minute"] = requests_per_minute
    imported = entrypoint(app, env, "python", "manage.py", "agents_config", "import", "-", input=json.dumps(config))
    assert imported.returncode == 0, imported.stderr


def upstreams(responses):
    return {response.headers["X-Upstream"] for response in responses}


def test_the_instances_run_the_image_command_as_a_user_that_is_not_root(deployment):
    for instance in deployment["instances"]:  # gunicorn's master (the entry point execs it) and its workers
        for pid in [instance.pid, *Path(f"/proc/{instance.pid}/task/{instance.pid}/children").read_text().split()]:
            status = Path(f"/proc/{pid}/status").read_text()
            assert re.search(r"^Uid:\s+(\d+)", status, re.MULTILINE).group(1) != "0"
            environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            assert {b"DJANGO_ENV=production", b"PYTHONDONTWRITEBYTECODE=1"} <= set(environment)


def test_health_through_the_proxy_reports_each_instance(deployment):
    client = fresh_client(deployment)
    answers = [client.get(f"{deployment['url']}/healthz", timeout=TIMEOUT) for _ in range(4)]
    assert {response.json()["instance"] for response in answers} == set(INSTANCES)
    assert all(response.json()["checks"] == {"database": "ok", "cache": "ok"} for response in answers)


def test_the_proxy_serves_the_site_over_https_in_production_mode(deployment):
    client = fresh_client(deployment)
    document = client.get(f"{deployment['url']}/.well-known/agents.json", timeout=TIMEOUT)
    assert document.status_code == 200
    # The proxy's scheme and host reached the instances: the published site URL is the proxy's.
    assert document.json()["site"]["url"] == deployment["url"]
    assert document.headers["Strict-Transport-Security"].startswith("max-age=")


def test_the_rate_limit_is_exact_per_client_address_across_both_instances(deployment):
    set_rate_limit(deployment, 12)
    first, second = fresh_client(deployment), fresh_client(deployment)

    def search_from(client, forged=False):
        headers = {"X-Forwarded-For": f"198.51.100.{secrets.randbelow(250)}"} if forged else {}
        return lambda: client.get(f"{deployment['url']}{API}/search", params={"q": "mug"}, headers=headers,
                                  timeout=TIMEOUT)

    remaining = fresh_window(search_from(first))
    assert remaining == 11
    answers = burst([search_from(first, forged=True) for _ in range(remaining + 6)])
    assert_exact(answers, allowed=remaining)
    assert len(upstreams(answers)) == 2  # the burst was split between both instances

    assert fresh_window(search_from(second)) == 11  # another address has a budget of its own


def test_a_session_and_its_audit_chain_span_both_instances(deployment):
    set_rate_limit(deployment, 600)
    client = fresh_client(deployment)
    url = f"{deployment['url']}{API}"
    created = client.post(f"{deployment['url']}{SESSION_PATH}", json={"agent_name": "proxied"}, timeout=TIMEOUT)
    token = ok_data(created, 201)["session_token"]
    client.headers["Authorization"] = f"Bearer {token}"
    calls = [
        client.get(f"{url}/search", params={"q": "mug"}, timeout=TIMEOUT),
        client.post(f"{url}/cart/add", json={"item_id": ITEM, "quantity": 2}, timeout=TIMEOUT),
        client.post(f"{url}/cart/add", json={"item_id": ITEM, "quantity": 1}, timeout=TIMEOUT),
        client.get(f"{url}/cart/view", timeout=TIMEOUT),
    ]
    assert [response.status_code for response in calls] == [200, 200, 200, 200]
    assert len(upstreams([created, *calls])) == 2
    assert [(line["item_id"], line["quantity"]) for line in calls[-1].json()["data"]["items"]] == [(ITEM, 3)]

    ended = ok_data(client.delete(f"{deployment['url']}{SESSION_PATH}", timeout=TIMEOUT))
    artifact = ok_data(client.get(ended["audit_url"], timeout=TIMEOUT))
    published_key = client.get(f"{deployment['url']}/.well-known/agents.json", timeout=TIMEOUT).json()["audit"]["public_key"]
    assert verify(artifact, published_key).ok
    assert [(event["seq"], event["capability"]) for event in artifact["events"]] == [
        (1, "session.create"), (2, "search"), (3, "cart.add"), (4, "cart.add"), (5, "cart.view"),
        (6, "session.end")]
    assert_error(client.get(f"{url}/cart/view", timeout=TIMEOUT), 401, "session_ended")


def test_the_proxys_access_log_keeps_no_checkout_link_or_inspector_secret(deployment):
    set_rate_limit(deployment, 600)
    client = fresh_client(deployment)
    created = ok_data(client.post(f"{deployment['url']}{SESSION_PATH}", json={"agent_name": "logged"},
                                  timeout=TIMEOUT), 201)
    client.headers["Authorization"] = f"Bearer {created['session_token']}"
    ok_data(client.post(f"{deployment['url']}{API}/cart/add", json={"item_id": ITEM, "quantity": 1}, timeout=TIMEOUT))
    checkout_url = ok_data(client.post(f"{deployment['url']}{API}/checkout", timeout=TIMEOUT))["checkout_url"]
    secrets_in_paths = [urlsplit(checkout_url).path.split("/")[2], urlsplit(created["inspect_url"]).path.split("/")[-1]]
    assert client.get(checkout_url, timeout=TIMEOUT).status_code == 200
    assert client.get(created["inspect_url"], timeout=TIMEOUT).status_code == 200

    log = wait_for_log_lines(deployment["access_log"], ["/checkout/[redacted]/", "/inspect/[redacted]"])
    assert all(len(secret) >= 20 and secret not in log for secret in secrets_in_paths)
    assert f"{API}/cart/add" in log  # other paths are logged as they are


def wait_for_log_lines(path, fragments, timeout=10):
    """The log once it holds every fragment (nginx writes a line after answering)."""
    deadline = time.monotonic() + timeout
    while True:
        log = path.read_text()
        if all(fragment in log for fragment in fragments) or time.monotonic() > deadline:
            assert all(fragment in log for fragment in fragments), log[-2000:]
            return log
        time.sleep(0.1)
