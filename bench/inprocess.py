"""CPU per call in process, revisions side by side: each revision's site is prepared as
bench/tree_ab.py prepares it (a git worktree of its own, 1k products, the bench's sessions), then
the revisions take turns calling their WSGI application directly, no server and no network.

    .venv/bin/python -m bench.inprocess 5bf7cce HEAD [--cases detail search cart.add mcp.detail]
                                        [--pairs 2] [--calls 2000] [--rounds 7]

tree_ab shows a change as a ratio to the floor under gunicorn; this shows it as microseconds of
CPU a call (the least of the rounds: the least disturbed), for the same requests make bench
sends, so a loss can be taken apart. Each turn runs in a process of its own, in the revision's
checkout, with the site's environment.
"""
import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = ["floor", "detail", "search", "cart.add", "mcp.detail"]
WARM_UP_CALLS = 300


def main():
    from bench.bench import API, CART_ITEMS, DETAIL_ITEM, MCP, SEARCH_TERM
    from bench.tree_ab import prepared_site, remove_checkout

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="+", help="revisions as git understands them (a commit, HEAD)")
    parser.add_argument("--cases", nargs="+", default=CASES, choices=CASES)
    parser.add_argument("--pairs", type=int, default=2, help="turns of every revision")
    parser.add_argument("--calls", type=int, default=2000, help="calls per round")
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    constants = {"api": API, "mcp": MCP, "detail_item": DETAIL_ITEM, "search_term": SEARCH_TERM,
                 "cart_items": CART_ITEMS}
    with tempfile.TemporaryDirectory(prefix="acme-inprocess-") as scratch:
        sites = []
        try:
            for number, revision in enumerate(options.revisions):
                sites.append(prepared_site(Path(scratch) / str(number), revision, ["mcp.detail"]))
            best = {(revision, case): [] for revision in options.revisions for case in options.cases}
            for turn in range(options.pairs):
                order = range(len(sites)) if turn % 2 == 0 else reversed(range(len(sites)))
                for index in order:
                    for case in options.cases:
                        best[options.revisions[index], case].append(
                            turn_of(sites[index], case, constants, options.calls, options.rounds))
        finally:
            for site in sites:
                remove_checkout(site.root)
    print_table(options.revisions, options.cases, best)


def turn_of(site, case, constants, calls, rounds):
    """The least µs of CPU a call of `case` over `rounds` rounds of `calls`, in a process of its own."""
    arguments = json.dumps({"case": case, "calls": calls, "rounds": rounds, "constants": constants,
                            "tokens": site.tokens.read_text().split(),
                            "mcp_sessions": site.mcp_sessions.read_text().split()})
    result = subprocess.run([sys.executable, __file__, "--measure"], cwd=site.root, env=site.env, input=arguments,
                            capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        raise RuntimeError(f"{case} failed in {site.root}:\n{result.stderr}")
    return json.loads(result.stdout.splitlines()[-1])["us"]


def print_table(revisions, cases, best):
    first = revisions[0]
    print(f"\nµs of CPU a call, the least of every round and turn (each turn's in brackets); "
          f"change against {first}")
    for case in cases:
        print(f"\n{case}")
        baseline = min(best[first, case])
        for revision in revisions:
            least = min(best[revision, case])
            turns = "/".join(f"{value:.0f}" for value in best[revision, case])
            print(f"  {revision:12}  {least:7.1f}  ({turns})  {(least / baseline - 1) * 100:+.1f}%")


# In the revision's checkout, with its site's environment (--measure).

def measure():
    options = json.load(sys.stdin)
    sys.path[0] = os.getcwd()  # the revision's checkout, not bench/
    import logging

    from acme.wsgi import application

    logging.disable(logging.WARNING)  # a refusal would log a line a call
    make_environ = environ_maker(options["case"], options["constants"], options["tokens"], options["mcp_sessions"])
    answered = []

    def start_response(status, headers, exc_info=None):
        answered.append(status)

    def call(number):
        body = application(make_environ(number), start_response)
        content = b"".join(body)
        body.close()
        return content

    content = call(0)
    if not answered[-1].startswith("200") or b'"isError":true' in content:
        raise SystemExit(f"{options['case']} answered {answered[-1]}: {content[:300]!r}")
    for number in range(WARM_UP_CALLS):
        call(number)
    rounds = []
    for _ in range(options["rounds"]):
        started = time.process_time()
        for number in range(options["calls"]):
            call(number)
        rounds.append((time.process_time() - started) / options["calls"] * 1e6)
    print(json.dumps({"us": min(rounds)}))


def environ_maker(case, constants, tokens, mcp_sessions):
    """number → the WSGI environ of the case's call `number`: the requests bench/wrk/*.lua send."""
    api, item = constants["api"], constants["detail_item"]
    if case == "floor":
        return lambda number: environ("GET", "/bench/floor")
    if case == "detail":
        return lambda number: environ("GET", f"{api}/detail/{item}")
    if case == "search":
        query = f"q={constants['search_term']}&limit=20"
        return lambda number: environ("GET", f"{api}/search", query=query)
    if case == "cart.add":
        items = constants["cart_items"]

        def cart_add(number):
            body = {"item_id": items[(number // len(tokens)) % len(items)], "quantity": 1}
            return environ("POST", f"{api}/cart/add", body=json.dumps(body).encode(), headers={
                "HTTP_AUTHORIZATION": f"Bearer {tokens[number % len(tokens)]}", "CONTENT_TYPE": "application/json"})
        return cart_add
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "detail", "arguments": {"id": item}}}
    body = json.dumps(message).encode()
    return lambda number: environ("POST", constants["mcp"], body=body, headers={
        "CONTENT_TYPE": "application/json", "HTTP_ACCEPT": "application/json, text/event-stream",
        "HTTP_MCP_PROTOCOL_VERSION": "2025-11-25", "HTTP_MCP_SESSION_ID": mcp_sessions[number % len(mcp_sessions)]})


def environ(method, path, *, query="", body=b"", headers=None):
    host, port = os.environ["HOST"], os.environ["PORT"]
    return {
        "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query, "SERVER_NAME": host,
        "SERVER_PORT": port, "HTTP_HOST": f"{host}:{port}", "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body)),
        "wsgi.errors": sys.stderr, "wsgi.multithread": False, "wsgi.multiprocess": True, "wsgi.run_once": False,
        **(headers or {}),
    }


if __name__ == "__main__":
    if sys.argv[1:] == ["--measure"]:
        measure()
    else:
        main()
