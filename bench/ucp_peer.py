"""The official UCP sample merchant server (../shared/peers/ucp-sample-server: FastAPI, SQLite)
as the peer of the bench's UCP cases, set up as ../shared/peers/UCP.md documents it: a
virtualenv of bench/ucp_peer_requirements.txt (kept in the tests' build cache,
tests/build_cache.py), import_csv.py of the suite's flower shop, server.py on a port of its own.

Both sides get the same requests: the suite's own create payload, the suite's headers, and a
UCP-Agent profile served here on loopback (PlatformProfile), which each side fetches as it does.
"""
import json
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from bench import services
from tests.build_cache import built

ROOT = Path(__file__).resolve().parent.parent
SHARED_PEERS = ROOT.parent / "shared" / "peers"
SAMPLE_SERVER = SHARED_PEERS / "ucp-sample-server" / "server"
SUITE = SHARED_PEERS / "ucp-conformance"
FLOWER_SHOP = SUITE / "test_data" / "flower_shop"
REQUIREMENTS = [ROOT / "bench" / "ucp_peer_requirements.txt", ROOT / "tests" / "ucp_suite" / "requirements.txt"]
SIMULATION_SECRET = "bench-simulation-secret"
PROFILE_PATH = "/profiles/shopping-agent.json"
# The suite's create_checkout_payload() for the first item of conformance_input.json, without
# the client's id (create omits it): one bouquet, shipped to the US by standard shipping.
CREATE_BODY = {
    "line_items": [{"item": {"id": "bouquet_roses", "title": "Red Rose"}, "quantity": 1}],
    "currency": "USD",
    "payment": {"selected_instrument_id": "instr_1", "instruments": [], "handlers": [{
        "id": "google_pay", "name": "google.pay", "version": "2026-01-11", "spec": "https://example.com/spec",
        "config_schema": "https://example.com/schema", "instrument_schemas": ["https://example.com/instrument_schema"],
        "config": {}}]},
    "fulfillment": {"methods": [{"type": "shipping", "destinations": [{"address_country": "US", "id": "dest_1"}],
                                 "selected_destination_id": "dest_1", "groups": [{"selected_option_id": "std-ship"}]}]},
}
QUANTITY = "__QUANTITY__"  # where bench/wrk/ucp.lua writes each update's quantity


def unavailable_reason():
    """Why the sample server cannot run here, or None when it can."""
    if not (SAMPLE_SERVER / "server.py").exists():
        return f"no UCP sample server in {SAMPLE_SERVER}"
    if not (FLOWER_SHOP / "products.csv").exists():
        return f"no flower shop data in {FLOWER_SHOP}"
    return None


def python():
    """The sample server's interpreter, built once per content of REQUIREMENTS."""
    def build(folder):
        subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")], check=True, capture_output=True,
                       timeout=120)
        installed = subprocess.run([str(folder / "venv/bin/pip"), "install", "--quiet", "-r", str(REQUIREMENTS[0])],
                                   capture_output=True, text=True, timeout=600)
        if installed.returncode != 0:
            raise RuntimeError(f"pip install -r {REQUIREMENTS[0]} failed:\n{installed.stderr}")

    return built("ucp-sample-venv", [*REQUIREMENTS, sys.version], build) / "venv" / "bin" / "python"


class SampleServer:
    """server.py on its own databases in `data_dir`, loaded with the flower shop by import_csv.py."""

    def __init__(self, data_dir):
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.port = services.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.databases = [f"--products_db_path={self.data_dir / 'products.db'}",
                          f"--transactions_db_path={self.data_dir / 'transactions.db'}"]
        self.process = self.log = None

    def prepare(self):
        imported = subprocess.run([str(python()), "import_csv.py", *self.databases, f"--data_dir={FLOWER_SHOP}"],
                                  cwd=SAMPLE_SERVER, capture_output=True, text=True, timeout=300)
        if imported.returncode != 0:
            raise RuntimeError(f"import_csv.py failed:\n{imported.stderr}")

    def start(self):
        self.log = open(self.data_dir / "server.log", "a")
        self.process = subprocess.Popen(
            [str(python()), "server.py", *self.databases, f"--port={self.port}",
             f"--simulation_secret={SIMULATION_SECRET}"],
            cwd=SAMPLE_SERVER, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the sample server exited with {self.process.returncode}; see {self.log.name}")
            try:
                urllib.request.urlopen(f"{self.url}/.well-known/ucp", timeout=5)
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the sample server did not answer within 60 s")

    def stop(self):
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None
            self.log.close()


class PlatformProfile:
    """The suite's platform profile (shopping-agent-test.json) served on loopback, for UCP-Agent."""

    def __init__(self):
        body = (SUITE / "shopping-agent-test.json").read_text().replace("{webhook_port}", "9").encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200 if self.path == PROFILE_PATH else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{PROFILE_PATH}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def headers(profile_url):
    return {"Content-Type": "application/json", "UCP-Agent": f'profile="{profile_url}"', "request-signature": "test",
            "idempotency-key": str(uuid.uuid4()), "request-id": str(uuid.uuid4())}


def checkout_sessions_path(server_url):
    """The path of checkout-sessions under the REST endpoint the server's profile names."""
    with urllib.request.urlopen(f"{server_url}/.well-known/ucp", timeout=30) as answer:
        profile = json.load(answer)
    endpoint = profile["ucp"]["services"]["dev.ucp.shopping"]["rest"]["endpoint"]
    return f"{urlsplit(endpoint).path.rstrip('/')}/checkout-sessions"


def make_checkouts(server_url, profile_url, count, path):
    """`count` checkout sessions on the server; a line each in `path`: its id, a tab, and the
    update the suite's update_checkout_session would send for it, QUANTITY in place of the quantity."""
    sessions = checkout_sessions_path(server_url)
    lines = []
    for _ in range(count):
        request = urllib.request.Request(f"{server_url}{sessions}", data=json.dumps(CREATE_BODY).encode(),
                                         headers=headers(profile_url), method="POST")
        with urllib.request.urlopen(request, timeout=30) as answer:
            checkout = json.load(answer)
        update = {
            "id": checkout["id"], "currency": checkout["currency"],
            "line_items": [{"id": line["id"], "item": {"id": line["item"]["id"], "title": line["item"]["title"]},
                            "quantity": QUANTITY} for line in checkout["line_items"]],
            "payment": {key: checkout["payment"][key] for key in ("selected_instrument_id", "instruments", "handlers")
                        if key in checkout["payment"]},
        }
        body = json.dumps(update, separators=(",", ":")).replace(f'"{QUANTITY}"', QUANTITY)
        lines.append(f"{checkout['id']}\t{body}")
    Path(path).write_text("\n".join(lines) + "\n")
    return sessions
