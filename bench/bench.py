"""`make bench`: the site under gunicorn, driven with wrk on loopback, compared with a floor.

    bench/run [--duration 4] [--rounds 3] [--catalogs 1000 10000 100000] [--sustained 60] [--no-scale-out]
              [--no-peer] [--no-ucp] [--only-ucp]

The embedded default (SQLite, diskcache) is served by deploy/gunicorn.conf.py with one sync
worker per core, GUNICORN_SPEEDUPS=1 (the site's tuning of gunicorn), BENCH_FLOOR=1, limits
raised so nothing is refused, audit on. The catalog
grows 1k → 10k → 100k products (bench/synthetic_catalog.py); each phase runs its cases in
rounds, every run of a case between two runs of the floor (a constant JSON answer through the
full middleware stack), and a case's ratio is the median over the rounds of its requests/s
over the mean of the two floors around it. The reference SDK (bench/peer.py) serves the same
catalog beside it: the cases it has run on both, one right after the other (the order
alternating by round), and a case's × peer is the median over the rounds of our 2xx answers
per second over the peer's. Then search and cart.add each run for --sustained seconds from one
client, on our site and on the peer. The UCP cases (ucp.checkout_create, ucp.checkout_update) run
on a site of their own loaded with the UCP conformance suite's flower shop, side by side with the
official UCP sample server on the same data (bench/ucp_peer.py), the same way. With PostgreSQL
and Redis installed the phases before the UCP one run again in the scale-out shape. A case
answering more than 1% other than 2xx, on either side, fails the run. Results: tables on stdout
and bench/results/latest.json. docs/performance.md explains the numbers.
"""
import argparse
import copy
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path

from acme.embedded.cache_dir import default_cache_dir
from bench import peer as reference_sdk
from bench import services, ucp_peer
from bench.synthetic_catalog import SEARCH_TERM

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "latest.json"
API = "/.well-known/agents/api"
CORES = os.cpu_count()
# One connection per wrk thread, the same for every case: the stateful scripts (sessions,
# purchase flow) need it, and 4 keeps both sync workers busy while a connection is re-opened.
WRK = ["wrk", "--threads", "4", "--connections", "4", "--timeout", "5s"]
SESSIONS = 200
MCP_SESSIONS = 20
MCP = "/mcp"
CART_ITEMS = [f"p{index:06d}" for index in range(10)]
DETAIL_ITEM = "p000042"  # one of the products SEARCH_TERM finds
SITE_SETTINGS = {"DATABASE_URL", "REDIS_URL", "DJANGO_ENV", "TRUSTED_PROXY_COUNT", "SECRET_KEY", "DEBUG",
                 "CATALOG_READ_CACHE_SIZE"}

# Targets (ratios to the floor, embedded default; docs/performance.md): issue #9's, mcp.detail issue #19's,
# search_uncached@100k issue #21's (the index alone, without the read cache).
TARGETS = {"agents.json": 0.9, "agents.txt": 0.9, "detail": 0.7, "search@100k": 0.5, "search_uncached@100k": 0.3,
           "cart.add": 0.3, "mcp.detail": 0.5}
P99_BOUNDS_MS = {"search@100k": 25, "search_uncached@100k": 10}
SUSTAINED_TOLERANCE = 0.10
# A case whose answers are more than this share other than 2xx (or socket errors) is no
# measurement: the run fails, whichever side answered them.
ERROR_SHARE_LIMIT = 0.01
# The cases compared with the reference SDK (issue 21). It has no floor, no MCP and no read
# cache for search_uncached to skip; browse and cart.view it has, but they are not compared.
PEER_CASES = ["agents.json", "agents.txt", "detail", "search", "cart.add", "purchase_flow"]
# The peer's rate limiter keeps every API call of the last minute in a list that each call reads
# whole, so a run would be slowed by the runs before it: before each run of these the peer
# starts afresh (fresh_peer). Its documents skip the limiter.
PEER_LIMITED_CASES = {"detail", "search", "cart.add", "purchase_flow"}
# The cases compared with the official UCP sample server (issue 40), and the ratio each must reach.
UCP_CASES = ["ucp.checkout_create", "ucp.checkout_update"]
PEER_TARGETS = {"ucp.checkout_create": 1.0, "ucp.checkout_update": 1.0}
UCP_CHECKOUTS = 200  # checkout sessions made beforehand on each side for ucp.checkout_update
WINDOW_SECONDS = 10
ONE_CLIENT = ["wrk", "--threads", "1", "--connections", "1", "--timeout", "5s"]


class Site:
    """One gunicorn serving one database (deploy/gunicorn.conf.py, one sync worker per core), run
    from `root`: this tree, or a checkout of another revision (bench/tree_ab.py)."""

    def __init__(self, data_dir, root=ROOT, **env):
        Path(data_dir).mkdir(parents=True)
        self.root = Path(root)
        self.port = services.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {key: value for key, value in os.environ.items() if key not in SITE_SETTINGS}
        self.env.update(
            DATA_DIR=str(data_dir), DJANGO_SETTINGS_MODULE="acme.settings", BENCH_FLOOR="1",
            HOST="127.0.0.1", PORT=str(self.port), WORKERS=str(CORES), LOG_LEVEL="WARNING",
            CART_MAX_QUANTITY="1000000", GUNICORN_SPEEDUPS="1",
        )
        self.env.update(env)
        self.log = open(Path(data_dir) / "gunicorn.log", "w")
        self.process = None

    def sibling(self, **env):
        """Another gunicorn on this site's database, with `env` on top, on a port of its own."""
        other = copy.copy(self)
        other.port = services.free_port()
        other.url = f"http://127.0.0.1:{other.port}"
        other.env = {**self.env, "PORT": str(other.port), **env}
        other.log = open(Path(self.env["DATA_DIR"]) / f"gunicorn-{other.port}.log", "w")
        other.process = None
        return other

    def manage(self, *args, input=None):
        return self.python("manage.py", *args, input=input)

    def python(self, *args, input=None, timeout=900):
        result = subprocess.run([sys.executable, *args], cwd=self.root, env=self.env, input=input,
                                capture_output=True, text=True, timeout=timeout)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed:\n{result.stderr}")
        return result.stdout

    def prepare(self):
        """Migrate, then raise the limits so that nothing is refused (audit stays on)."""
        self.manage("migrate", "--noinput", "-v0")
        config = json.loads(self.manage("agents_config", "export"))
        config["rate_limit"] = {"requests_per_minute": 1_000_000_000, "max_sessions": 1_000_000}
        config["audit"]["enabled"] = True
        self.manage("agents_config", "import", "-", input=json.dumps(config))

    def grow_catalog(self, products):
        started = time.monotonic()
        self.python("-m", "bench.synthetic_catalog", str(products))
        print(f"  catalog: {products} products ({time.monotonic() - started:.0f} s to load)", flush=True)

    def start(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", "deploy/gunicorn.conf.py", "acme.wsgi"],
            cwd=self.root, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}; see {self.log.name}")
            try:
                urllib.request.urlopen(f"{self.url}/healthz", timeout=5)
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("gunicorn did not answer within 60 s")

    def stop(self):
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
        self.log.close()

    def make_mcp_sessions(self, path):
        """MCP_SESSIONS sessions opened with initialize; their Mcp-Session-Ids, one a line, in `path`."""
        message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        session_ids = []
        for _ in range(MCP_SESSIONS):
            request = urllib.request.Request(f"{self.url}{MCP}", data=json.dumps(message).encode(), headers=headers)
            with urllib.request.urlopen(request, timeout=30) as response:
                session_ids.append(response.headers["Mcp-Session-Id"])
        path.write_text("\n".join(session_ids) + "\n")


def call(server, method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{server.url}{path}", data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read() or b"null")


def make_sessions(server, path):
    """SESSIONS sessions on `server` (our site or the peer), each with a cart of the CART_ITEMS;
    their tokens, one a line, in `path`."""
    tokens = []
    for _ in range(SESSIONS):
        _, created = call(server, "POST", f"{API}/session", {"agent_name": "bench"})
        token = created["data"]["session_token"]
        for item in CART_ITEMS:
            call(server, "POST", f"{API}/cart/add", {"item_id": item, "quantity": 1}, token)
        tokens.append(token)
    path.write_text("\n".join(tokens) + "\n")


def cases(tokens_file, mcp_sessions_file):
    """Case name → wrk arguments after the common ones (script, URL path, script arguments)."""
    return {
        "floor": ("get.lua", "/bench/floor"),
        "agents.json": ("get.lua", "/.well-known/agents.json"),
        "agents.txt": ("get.lua", "/.well-known/agents.txt"),
        "detail": ("get.lua", f"{API}/detail/{DETAIL_ITEM}"),
        "mcp.detail": ("mcp.lua", MCP, str(mcp_sessions_file), "detail", json.dumps({"id": DETAIL_ITEM})),
        "browse": ("get.lua", f"{API}/browse?limit=20"),
        "browse_deep": ("get.lua", f"{API}/browse?limit=20&page=2500"),  # offset 49,980: mid-catalog at 100k
        "search": ("get.lua", f"{API}/search?q={SEARCH_TERM}&limit=20"),
        "cart.add": ("sessions.lua", f"{API}/cart/add", str(tokens_file), "POST", f"{API}/cart/add",
                     ",".join(CART_ITEMS)),
        "cart.view": ("sessions.lua", f"{API}/cart/view", str(tokens_file), "GET", f"{API}/cart/view"),
        "purchase_flow": ("purchase.lua", f"{API}/search", API, SEARCH_TERM, DETAIL_ITEM),
    }


def wrk(server, spec, seconds, client=WRK):
    (run,) = wrk_together([(server, spec)], seconds, client)
    return run


def wrk_together(targets, seconds, client=WRK):
    """One wrk per (server, spec), all running at once for `seconds`; their results in the same order."""
    processes = [subprocess.Popen(wrk_command(server, spec, seconds, client), cwd=ROOT, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE) for server, spec in targets]
    return [wrk_result(process, seconds) for process in processes]


def wrk_command(server, spec, seconds, client):
    script, path, *args = spec
    command = [*client, "--duration", f"{seconds}s", "--script", f"bench/wrk/{script}", f"{server.url}{path}"]
    return command + ["--", *args] if args else command


def wrk_result(process, seconds):
    stdout, stderr = process.communicate(timeout=seconds + 60)
    line = next((line for line in stdout.splitlines() if line.startswith("BENCH ")), None)
    if process.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed:\n{stdout}\n{stderr}")
    run = json.loads(line[len("BENCH "):])
    if run["requests"] == 0:  # a stalled server: no ratio can be made of it
        raise RuntimeError(f"no answer in {seconds} s: {' '.join(process.args)}")
    # wrk counts 4xx and 5xx itself; a script with a response callback counts every non-2xx, those included.
    run["failed"] = max(run["status_errors"], run["non_2xx"])
    elapsed = run["duration_us"] / 1e6
    run["rps"] = run["requests"] / elapsed
    run["ok_rps"] = (run["requests"] - run["failed"]) / elapsed
    return run


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a 3xx is the probe's answer, not a step to the page it names


NO_REDIRECTS = urllib.request.build_opener(_NoRedirects)


def probe(server, spec):
    """One request of a plain GET case must answer 2xx itself, not after a redirect (wrk
    counts only 4xx and 5xx, and does not follow redirects: a 3xx would be measured as served)."""
    script, path, *_ = spec
    if script == "get.lua":
        try:
            with NO_REDIRECTS.open(f"{server.url}{path}", timeout=30) as response:
                status = response.status
        except urllib.error.HTTPError as refusal:
            status = refusal.code
        if not 200 <= status < 300:
            raise RuntimeError(f"{server.url}{path} answered {status}")


def run_phase(site, names, specs, seconds, rounds, peer=None, peer_specs=None, fresh_peer=None,
              peer_cases=PEER_CASES):
    """Rounds of [floor, then each case followed by the floor again]; returns {name: summary}.

    The machine's speed drifts within a phase (other jobs share its cores), so each run of a
    case is compared with the floor measured right before and right after it; a case's ratio
    is the median of those paired ratios over the rounds. A case of `peer_cases` also runs on
    the peer between the same two floors, right after ours in odd rounds and right before it
    in even ones; its ratio to the peer is the median of the rounds' ratios of 2xx answers per
    second. `fresh_peer()` restarts the peer before each run of a PEER_LIMITED_CASES case.
    """
    floors, runs, peer_runs = [], {name: [] for name in names}, {name: [] for name in names}
    for number in range(rounds):
        before = wrk(site, specs["floor"], seconds)
        floors.append(before)
        for name in names:
            case = name.split("@")[0].removesuffix("_uncached")
            on_peer = peer is not None and case in peer_cases
            if on_peer and case in PEER_LIMITED_CASES and fresh_peer is not None:
                fresh_peer()
            if number == 0:
                probe(site, specs[case])
                if on_peer:
                    probe(peer, peer_specs[case])
            if on_peer:
                run, peer_run = side_by_side(site, specs[case], peer, peer_specs[case], seconds,
                                             ours_first=number % 2 == 0)
                peer_runs[name].append(peer_run)
            else:
                run = wrk(site, specs[case], seconds)
            after = wrk(site, specs["floor"], seconds)
            run["floor_rps"] = (before["rps"] + after["rps"]) / 2
            runs[name].append(run)
            floors.append(after)
            before = after
        print(f"  round {number + 1}/{rounds}: floor {statistics.median(f['rps'] for f in floors[-len(names) - 1:]):.0f}/s, "
              + ", ".join(round_summary(name, runs[name][-1], peer_runs[name][-1:]) for name in names), flush=True)
    for run in floors:
        run["floor_rps"] = run["rps"]
    results = {"floor": summarize(floors)}
    del results["floor"]["ratio_to_floor_rounds"]  # each 1.0
    for name in names:
        results[name] = summarize(runs[name])
        if peer_runs[name]:
            results[name].update(versus_peer(runs[name], peer_runs[name]))
    return results


def side_by_side(site, spec, peer, peer_spec, seconds, ours_first):
    """Our run of a case and the peer's, one right after the other: (ours, the peer's)."""
    if ours_first:
        ours = wrk(site, spec, seconds)
        return ours, wrk(peer, peer_spec, seconds)
    theirs = wrk(peer, peer_spec, seconds)
    return wrk(site, spec, seconds), theirs


def round_summary(name, run, peer_runs):
    text = f"{name} {run['rps']:.0f}/s (x{run['rps'] / run['floor_rps']:.2f}"
    for theirs in peer_runs:
        text += f"; peer {theirs['rps']:.0f}/s, x{run['ok_rps'] / max(theirs['ok_rps'], 1e-9):.2f} peer"
    return text + ")"


def summarize(runs):
    ratios = [r["rps"] / r["floor_rps"] for r in runs]
    return {
        **traffic(runs),
        "floor_rps": round(statistics.median(r["floor_rps"] for r in runs), 1),
        "floor_rps_rounds": [round(r["floor_rps"], 1) for r in runs],
        "ratio_to_floor": round(statistics.median(ratios), 3),
        "ratio_to_floor_rounds": [round(ratio, 3) for ratio in ratios],
    }


def traffic(runs):
    """Requests/s, p50 and p99 (medians of the runs; each run's too, the worst p99 being what a
    bound is judged on), and the answers other than 2xx (sums)."""
    requests, failed, socket_errors = (sum(r[key] for r in runs) for key in ("requests", "failed", "socket_errors"))
    return {
        "rps": round(statistics.median(r["rps"] for r in runs), 1),
        "rps_rounds": [round(r["rps"], 1) for r in runs],
        "p50_ms": round(statistics.median(r["p50_us"] for r in runs) / 1000, 2),
        "p99_ms": round(statistics.median(r["p99_us"] for r in runs) / 1000, 2),
        "p99_ms_rounds": [round(r["p99_us"] / 1000, 2) for r in runs],
        "requests": requests, "non_2xx": failed, "socket_errors": socket_errors,
        "error_share": round((failed + socket_errors) / max(requests, 1), 4),
    }


def versus_peer(runs, peer_runs):
    """The peer's traffic, and our 2xx answers per second over the peer's: the median of the rounds."""
    ratios = [ours["ok_rps"] / theirs["ok_rps"] for ours, theirs in zip(runs, peer_runs) if theirs["ok_rps"]]
    return {
        "peer": traffic(peer_runs),
        "ratio_to_peer": round(statistics.median(ratios), 3) if ratios else None,
        "ratio_to_peer_rounds": [round(ratio, 3) for ratio in ratios],
    }


def sustained(server, spec, site, floor_spec, seconds):
    """One client on `server` (our site or the peer) for `seconds`: the throughput of its first
    and of its last 10 whole seconds.

    The machine's own speed drifts over a minute by as much as this run looks for, so a
    second client calls our site's floor throughout the same run, and each second of the case
    is divided by the same second of the floor. A window's value is the median of its ten
    per-second ratios (a neighbour's burst of a second or two moves a mean by more than 10%;
    a slowdown that grows with the traffic served, what this run looks for, moves the median
    as much), and the verdict compares the last window with the first. The case's own
    requests/s in each window, their raw change, both per-second series and the load
    average around the run are kept too.
    """
    script, path, *args = spec
    counted = (script, path, *(args or ["counted"]))
    load_before = os.getloadavg()[0]
    run, floor = wrk_together([(server, counted), (site, floor_spec)], seconds, client=ONE_CLIENT)
    case_seconds, floor_seconds = per_second(run), per_second(floor)
    common = sorted(set(case_seconds) & set(floor_seconds))[1:-1]  # whole seconds both ran through
    ratios = [case_seconds[second] / floor_seconds[second] for second in common]
    first, last = (statistics.median(ratios[:WINDOW_SECONDS]), statistics.median(ratios[-WINDOW_SECONDS:]))
    counts = [case_seconds[second] for second in common]
    first_rps, last_rps = statistics.median(counts[:WINDOW_SECONDS]), statistics.median(counts[-WINDOW_SECONDS:])
    change = last / first - 1
    return {
        "seconds": seconds, "first_10s_rps": round(first_rps, 1), "last_10s_rps": round(last_rps, 1),
        "first_10s_ratio_to_floor": round(first, 3), "last_10s_ratio_to_floor": round(last, 3),
        "change": round(change, 3), "within_10_percent": abs(change) <= SUSTAINED_TOLERANCE,
        "raw_change": round(last_rps / first_rps - 1, 3),
        "requests": run["requests"], "non_2xx": run["failed"], "socket_errors": run["socket_errors"],
        "error_share": round((run["failed"] + run["socket_errors"]) / max(run["requests"], 1), 4),
        "load_average_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "per_second": counts, "floor_per_second": [floor_seconds[second] for second in common],
    }


def per_second(run):
    return {int(second): count for second, count in run["per_second"].items()}


def bench_shape(data_dir, catalogs, seconds, rounds, sustained_seconds, with_peer, **env):
    """Every case on `site`; the searches once more on `uncached`, the same database served with the
    catalog read cache off (catalog/read_cache.py), which is what the full-text index costs; with
    `with_peer`, the PEER_CASES on the reference SDK too, serving the same catalog."""
    site = Site(data_dir, **env)
    site.prepare()
    uncached = site.sibling(CATALOG_READ_CACHE_SIZE="0")
    with ExitStack() as running:
        # Last, once both servers stopped: the counters they kept in shared memory (acme/embedded/cache_dir.py).
        running.callback(shutil.rmtree, default_cache_dir(data_dir), ignore_errors=True)
        for server in (site, uncached):
            server.start()
            running.callback(server.stop)
        peer = None
        if with_peer:
            peer = reference_sdk.Peer(Path(data_dir) / "products.json", Path(data_dir) / "peer.log")
            running.callback(peer.stop)
        tokens_file, mcp_sessions_file = Path(data_dir) / "tokens.txt", Path(data_dir) / "mcp_sessions.txt"
        peer_tokens_file = Path(data_dir) / "peer_tokens.txt"
        specs, peer_specs = cases(tokens_file, mcp_sessions_file), cases(peer_tokens_file, mcp_sessions_file)

        def fresh_peer():
            """The peer as each of its runs starts: restarted, its sessions made again (as ours
            were, before the phase), warmed for a second on agents.json, which its limiter skips."""
            peer.stop()
            peer.start()
            make_sessions(peer, peer_tokens_file)
            wrk(peer, peer_specs["agents.json"], 1)

        results = {}
        for products in catalogs:
            label = f"{products // 1000}k" if products % 1000 == 0 else str(products)
            site.grow_catalog(products)
            if peer:
                serve_catalog(site, peer)
            results.update(search_phase(site, uncached, label, specs, seconds, rounds, peer, peer_specs,
                                        fresh_peer if peer else None))
        make_sessions(site, tokens_file)
        site.make_mcp_sessions(mcp_sessions_file)
        names = ["agents.json", "agents.txt", "detail", "mcp.detail", "browse", "browse_deep", "cart.add", "cart.view",
                 "purchase_flow"]
        results = {**run_phase(site, names, specs, seconds, rounds, peer, peer_specs, fresh_peer if peer else None),
                   **results}
        for prefix in ("search", "search_uncached"):
            if f"{prefix}@1k" in results and f"{prefix}@100k" in results:
                # How many times longer a search takes on 100k products than on 1k: the ratios to the
                # floor, as the phases ran minutes apart, on a machine whose speed drifts.
                results[f"{prefix}_growth_1k_to_100k"] = round(
                    results[f"{prefix}@1k"]["ratio_to_floor"] / results[f"{prefix}@100k"]["ratio_to_floor"], 2)
        if peer:
            index_versus_peer(results)
        if sustained_seconds:
            results["sustained"] = {}
            floor = (*specs["floor"], "counted")
            for name in ["search", "cart.add"]:
                results["sustained"][name] = sustained(site, specs[name], site, floor, sustained_seconds)
                print(f"  sustained {name}: {results['sustained'][name]['per_second']} requests per second",
                      flush=True)
                if peer:
                    fresh_peer()
                    results["sustained"][name]["peer"] = sustained(peer, peer_specs[name], site, floor,
                                                                   sustained_seconds)
                    print(f"  sustained {name} on the peer: {results['sustained'][name]['peer']['per_second']} "
                          "requests per second", flush=True)
        return results


def ucp_phase(data_dir, seconds, rounds):
    """UCP_CASES on a site of their own, loaded with the conformance suite's flower shop by
    load_ucp_flower_shop, and on the official sample server loaded with the same data."""
    site = Site(Path(data_dir) / "site", OUTBOUND_ALLOWED_NETWORKS="127.0.0.0/8,::1/128")
    site.manage("migrate", "--noinput", "-v0")
    site.manage("load_ucp_flower_shop", str(ucp_peer.FLOWER_SHOP))
    site.prepare()  # after the loader, which sets the suite's own limits: the bench's, as for every case
    peer = ucp_peer.SampleServer(Path(data_dir) / "sample")
    peer.prepare()
    with ExitStack() as running:
        running.callback(shutil.rmtree, default_cache_dir(site.env["DATA_DIR"]), ignore_errors=True)
        profile = ucp_peer.PlatformProfile()
        running.callback(profile.stop)
        for server in (site, peer):
            server.start()
            running.callback(server.stop)
        create_body = Path(data_dir) / "create.json"
        create_body.write_text(json.dumps(ucp_peer.CREATE_BODY))
        specs, peer_specs = ({"floor": ("get.lua", "/bench/floor"), **ucp_specs(server, profile.url, create_body,
                                                                              Path(data_dir) / f"{side}-checkouts.txt")}
                             for server, side in ((site, "ours"), (peer, "peer")))
        return run_phase(site, UCP_CASES, specs, seconds, rounds, peer, peer_specs, peer_cases=UCP_CASES)


def ucp_specs(server, profile_url, create_body, checkouts_file):
    """The wrk arguments of UCP_CASES on `server`, after making its checkouts for the update case."""
    sessions = ucp_peer.make_checkouts(server.url, profile_url, UCP_CHECKOUTS, checkouts_file)
    return {"ucp.checkout_create": ("ucp.lua", sessions, "create", sessions, profile_url, str(create_body)),
            "ucp.checkout_update": ("ucp.lua", sessions, "update", sessions, profile_url, str(checkouts_file))}


def index_versus_peer(results):
    """search_uncached@N against the peer's search@N: our full-text index, without the read cache,
    against the peer's scan. The runs are not paired (another phase), so the ratio is of medians."""
    for name in [name for name in results if name.startswith("search_uncached@")]:
        peer = results.get(name.replace("search_uncached@", "search@"), {}).get("peer")
        if peer and peer["rps"]:
            results[name]["peer"] = peer
            results[name]["ratio_to_peer"] = round(results[name]["rps"] / peer["rps"], 3)
            results[name]["ratio_to_peer_rounds"] = []


def serve_catalog(site, peer):
    """The peer (re)started on the site's catalog as it is now, exported from its database."""
    site.python("-m", "bench.peer", "export", str(peer.products_json))
    peer.stop()
    peer.start()


def search_phase(site, uncached, label, specs, seconds, rounds, peer=None, peer_specs=None, fresh_peer=None):
    """search@label on the site (and on the peer), search_uncached@label on the sibling without
    the read cache (each paired with its own server's floor)."""
    cached_name, uncached_name = f"search@{label}", f"search_uncached@{label}"
    return {
        cached_name: run_phase(site, [cached_name], specs, seconds, rounds, peer, peer_specs, fresh_peer)[cached_name],
        uncached_name: run_phase(uncached, [uncached_name], specs, seconds, rounds)[uncached_name],
    }


def machine():
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())
    return {"cpu": model, "cores": CORES, "load_average_1m_at_start": round(os.getloadavg()[0], 2),
            "python": platform.python_version(), "wrk": " ".join(WRK)}


ORDER = ["floor", "agents.json", "agents.txt", "detail", "mcp.detail", "browse", "browse_deep", "search@1k", "search@10k",
         "search@100k", "search_uncached@1k", "search_uncached@10k", "search_uncached@100k", "cart.add",
         "cart.view", "purchase_flow", *UCP_CASES]
PEER_ORDER = ["agents.json", "agents.txt", "detail", "search@1k", "search@10k", "search@100k",
              "search_uncached@1k", "search_uncached@10k", "search_uncached@100k", "cart.add", "purchase_flow"]


def table(results):
    lines = ["| case | req/s | p50 ms | p99 ms | × floor | rounds | target |", "|---|---:|---:|---:|---:|---|---|"]
    for name in (name for name in ORDER if name in results):
        r = results[name]
        target = TARGETS.get(name)
        verdict = f"≥ {target} {'met' if r['ratio_to_floor'] >= target else 'MISSED'}" if target else ""
        bound = P99_BOUNDS_MS.get(name)
        if bound is not None:
            worst = max(r.get("p99_ms_rounds") or [r["p99_ms"]])
            verdict += f"; p99 ≤ {bound} ms in every round (worst {worst:.1f}) {'met' if worst <= bound else 'MISSED'}"
        rounds = "/".join(f"{ratio:.2f}" for ratio in r.get("ratio_to_floor_rounds", []))
        lines.append(f"| {name}{errors(r)} | {r['rps']:.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | "
                     f"{r['ratio_to_floor']:.2f} | {rounds} | {verdict} |")
    for prefix in (prefix for prefix in ("search", "search_uncached") if f"{prefix}_growth_1k_to_100k" in results):
        growth = results[f"{prefix}_growth_1k_to_100k"]
        lines.append(f"\n{prefix} from 1k to 100k products (x100): time per request x{growth:.1f}, "
                     f"{'sub-linear' if growth < 100 else 'NOT sub-linear'}")
    for name, s in results.get("sustained", {}).items():
        lines.append(f"\nsustained {name}, {s['seconds']} s from one client beside one floor client, medians "
                     f"of each window's seconds: {sustained_summary(s)}")
        if "peer" in s:
            lines.append(f"  the peer, the same way: {sustained_summary(s['peer'])}")
    return "\n".join(lines)


def sustained_summary(s):
    return (f"first 10 s {s['first_10s_rps']:.0f}/s ({s['first_10s_ratio_to_floor']:.3f} x floor), "
            f"last 10 s {s['last_10s_rps']:.0f}/s ({s['last_10s_ratio_to_floor']:.3f} x floor): "
            f"{s['change']:+.1%} against the floor (raw {s['raw_change']:+.1%}), "
            f"{'within' if s['within_10_percent'] else 'NOT within'} 10%{errors(s)} "
            f"(load average {s['load_average_1m'][0]} → {s['load_average_1m'][1]})")


def peer_table(results, names=PEER_ORDER):
    """Our site and a peer, case by case, from the same rounds."""
    lines = ["| case | ours req/s | peer req/s | ours p99 ms | peer p99 ms | × peer | rounds |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for name in (name for name in names if name in results):
        r = results[name]
        p = r["peer"]
        ratio = "–" if r["ratio_to_peer"] is None else f"{r['ratio_to_peer']:.2f}"
        if name in PEER_TARGETS and r["ratio_to_peer"] is not None:
            ratio += f" (≥ {PEER_TARGETS[name]} {'met' if r['ratio_to_peer'] >= PEER_TARGETS[name] else 'MISSED'})"
        rounds = "/".join(f"{ratio:.2f}" for ratio in r["ratio_to_peer_rounds"]) or "medians of unpaired runs"
        lines.append(f"| {name}{errors(r, 'ours')}{errors(p, 'peer')} | {r['rps']:.0f} | {p['rps']:.0f} | "
                     f"{r['p99_ms']:.1f} | {p['p99_ms']:.1f} | {ratio} | {rounds} |")
    return "\n".join(lines)


def errors(summary, side=""):
    """' (N non-2xx)' after a case that had any, FAILED above ERROR_SHARE_LIMIT; '' otherwise."""
    if not summary["non_2xx"] and not summary["socket_errors"]:
        return ""
    counted = f"{summary['non_2xx']} non-2xx, {summary['socket_errors']} socket errors"
    if summary["error_share"] > ERROR_SHARE_LIMIT:
        counted += f": {summary['error_share']:.1%}, FAILED"
    return f" ({f'{side}: ' if side else ''}{counted})"


def over_error_limit(results):
    """One line for each measurement of `results`, ours or the peer's, above ERROR_SHARE_LIMIT."""
    measured = [(name, r) for name, r in results.items() if isinstance(r, dict) and "error_share" in r]
    measured += [(f"sustained {name}", r) for name, r in results.get("sustained", {}).items()]
    found = []
    for name, r in measured:
        for side, summary in (("ours", r), ("peer", r.get("peer"))):
            if summary and summary["error_share"] > ERROR_SHARE_LIMIT:
                found.append(f"{name}, {side}: {summary['error_share']:.1%} of the answers not 2xx")
    return found


def print_tables(title, results):
    print(f"\n{title}\n\n{table(results)}", flush=True)
    if "peer" in results.get("agents.json", {}):
        print(f"\n{title}, side by side with the reference SDK\n\n{peer_table(results)}", flush=True)


def print_ucp_tables(results):
    print(f"\nUCP, the flower shop\n\n{table(results)}", flush=True)
    print(f"\nUCP, side by side with the official sample server\n\n{peer_table(results, UCP_CASES)}", flush=True)


def print_report(report):
    if "agents.json" in report:
        print_tables("Embedded default", report)
    if "skipped" not in report.get("scale_out", {"skipped": ""}):
        print_tables("Scale-out", report["scale_out"])
    if "skipped" not in report.get("ucp", {"skipped": ""}):
        print_ucp_tables(report["ucp"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # 4 s, not 5: the peer's runs fit in the 30 minutes the whole bench may take on 2 cores.
    parser.add_argument("--duration", type=int, default=4, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--catalogs", type=int, nargs="+", default=[1_000, 10_000, 100_000],
                        help="catalog sizes the searches run at, growing; the other cases run at the last")
    parser.add_argument("--sustained", type=int, default=60, help="seconds of each sustained run (0: none)")
    parser.add_argument("--no-scale-out", action="store_true")
    parser.add_argument("--no-peer", action="store_true", help="without the reference SDK (bench/peer.py)")
    parser.add_argument("--no-ucp", action="store_true", help="without the UCP cases (bench/ucp_peer.py)")
    parser.add_argument("--only-ucp", action="store_true", help="the UCP cases alone")
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument("--tables", type=Path, metavar="RESULTS",
                        help="print the tables of a results file (for docs/performance.md), run nothing")
    args = parser.parse_args()
    if args.tables:
        print_report(json.loads(args.tables.read_text()))
        return
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed: bench/run installs it (apt-get install wrk)")

    started = time.monotonic()
    report = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": machine()}
    no_ucp = "--no-ucp" if args.no_ucp else ucp_peer.unavailable_reason()
    if no_ucp and not args.no_ucp:
        sys.exit(f"The UCP sample server cannot run: {no_ucp}. Run with --no-ucp to bench without it.")
    failed = [] if args.only_ucp else bench_agents_protocol(report, args)
    if no_ucp:
        report["ucp"] = {"skipped": no_ucp}
    else:
        with tempfile.TemporaryDirectory(prefix="acme-bench-") as data_dir:
            print("UCP: the flower shop, beside the official sample server", flush=True)
            report["ucp"] = ucp_phase(data_dir, args.duration, args.rounds)
        print_ucp_tables(report["ucp"])
        failed += [f"UCP {line}" for line in over_error_limit(report["ucp"])]
    report["machine"]["load_average_1m_at_end"] = round(os.getloadavg()[0], 2)
    report["minutes"] = round((time.monotonic() - started) / 60, 1)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"Wrote {args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output} "
          f"({report['minutes']} minutes)")
    if failed:
        sys.exit(f"FAILED: more than {ERROR_SHARE_LIMIT:.0%} of the answers were not 2xx in\n  " + "\n  ".join(failed))


def bench_agents_protocol(report, args):
    """The embedded default and the scale-out shape, into `report`; the lines of over_error_limit."""
    no_peer = "--no-peer" if args.no_peer else reference_sdk.unavailable_reason()
    if no_peer and not args.no_peer:
        sys.exit(f"The reference SDK cannot run: {no_peer}. Run with --no-peer to bench without it.")
    if no_peer:
        report["peer"] = {"skipped": no_peer}
        print(f"Without the reference SDK: {no_peer}", flush=True)
    else:
        reference_sdk.build()
        report["peer"] = reference_sdk.describe()
    with tempfile.TemporaryDirectory(prefix="acme-bench-") as data_dir:
        print(f"Embedded default: SQLite, rate-limit counters in shared memory, gunicorn with {CORES} sync workers", flush=True)
        embedded = bench_shape(Path(data_dir) / "embedded", args.catalogs, args.duration, args.rounds, args.sustained, not no_peer)
    report.update(embedded)
    print_tables("Embedded default", embedded)
    failed = over_error_limit(embedded)

    missing = "--no-scale-out" if args.no_scale_out else services.unavailable_reason()
    if missing:
        report["scale_out"] = {"skipped": missing}
    else:
        with tempfile.TemporaryDirectory(prefix="acme-bench-") as data_dir, ExitStack() as stack:
            print("Scale-out: PostgreSQL + Redis", flush=True)
            database, cache = stack.enter_context(services.postgres()), stack.enter_context(services.redis())
            report["scale_out"] = bench_shape(Path(data_dir) / "scale-out", args.catalogs, args.duration, args.rounds, 0,
                                              not no_peer, DATABASE_URL=database, REDIS_URL=cache)
        print_tables("Scale-out", report["scale_out"])
        failed += [f"scale-out {line}" for line in over_error_limit(report["scale_out"])]
    return failed


if __name__ == "__main__":
    main()
