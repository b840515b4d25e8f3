"""The reference SDK as the benchmark's peer: built from ../shared/peers/agents-protocol-sdk
(its sdk/ sources and bench-server.js, read only) with the exact versions of bench/peer's
package-lock.json, into var/bench-peer; served by Node with the benchmark's own catalog.

    DATA_DIR=… python -m bench.peer export products.json   # the catalog in the peer's PRODUCTS_JSON format

Its limiter stays at bench-server.js's documented default (RL unset: 10^9 requests a
minute per address, counting every call, refusing none), as ours is raised to 10^9 too.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from bench import services

ROOT = Path(__file__).resolve().parent.parent
SDK_SOURCE = ROOT.parent / "shared" / "peers" / "agents-protocol-sdk"
PACKAGE = ROOT / "bench" / "peer"
BUILD = ROOT / "var" / "bench-peer"


def unavailable_reason(source=SDK_SOURCE):
    """Why the peer cannot be measured here, or None when it can."""
    if not (source / "bench-server.js").exists():
        return f"no reference SDK in {source} (its bench-server.js is missing)"
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "no node and npm (bench/run installs Debian's nodejs and npm)"
    return None


def build(source=SDK_SOURCE):
    """npm ci from our lockfile and tsc of the SDK, unless the last build had the same inputs."""
    inputs = [PACKAGE / "package.json", PACKAGE / "package-lock.json", source / "bench-server.js",
              source / "sdk" / "tsconfig.json", *sorted((source / "sdk" / "src").rglob("*.ts"))]
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in inputs)).hexdigest()
    stamp = BUILD / "built-from.sha256"
    if stamp.exists() and stamp.read_text() == digest:
        return BUILD
    started = time.monotonic()
    shutil.rmtree(BUILD, ignore_errors=True)
    (BUILD / "sdk").mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy(PACKAGE / name, BUILD / name)
    shutil.copy(source / "bench-server.js", BUILD / "bench-server.js")
    shutil.copy(source / "sdk" / "tsconfig.json", BUILD / "sdk" / "tsconfig.json")
    shutil.copytree(source / "sdk" / "src", BUILD / "sdk" / "src")
    run(["npm", "ci", "--no-audit", "--no-fund"], BUILD)
    run([str(BUILD / "node_modules" / ".bin" / "tsc"), "--project", "sdk"], BUILD)
    stamp.write_text(digest)
    print(f"  peer: built the reference SDK ({time.monotonic() - started:.0f} s)", flush=True)
    return BUILD


def describe(source=SDK_SOURCE):
    """What the results say about the peer."""
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    return {"source": str(source), "node": node, "packages": "bench/peer/package-lock.json",
            "rate_limit": "bench-server.js's default: RL unset, 10^9 requests a minute per address, counted"}


def run(command, cwd):
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")


class Peer:
    """bench-server.js under Node, serving the products of one JSON file (read when it starts)."""

    def __init__(self, products_json, log_path):
        self.products_json, self.log_path = Path(products_json), Path(log_path)
        self.port = services.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {key: value for key, value in os.environ.items() if key not in ("RL", "N")}
        self.env.update(PRODUCTS_JSON=str(self.products_json), PORT=str(self.port))
        self.process = self.log = None

    def start(self):
        self.log = open(self.log_path, "a")
        self.process = subprocess.Popen(["node", "bench-server.js"], cwd=BUILD, env=self.env,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the peer exited with {self.process.returncode}; see {self.log.name}")
            try:
                urllib.request.urlopen(f"{self.url}/.well-known/agents.json", timeout=5)
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the peer did not answer within 60 s")

    def stop(self):
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None
            self.log.close()


def export_catalog(path):
    """Every active product as the peer's {id, name, price, category, description}; the id is
    our public id, so detail and cart.add name the same item on both sides."""
    from catalog.models import Product

    products = [
        {"id": public_id, "name": name, "price": float(price), "category": category, "description": description}
        for public_id, name, price, category, description in Product.objects.filter(is_active=True)
        .order_by("pk").values_list("public_id", "name", "price", "category__name", "description")
    ]
    Path(path).write_text(json.dumps(products))
    return len(products)


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "acme.settings")
    import django

    django.setup()
    if sys.argv[1:2] != ["export"] or len(sys.argv) != 3:
        sys.exit(__doc__)
    print(f"exported {export_catalog(sys.argv[2])} products")
