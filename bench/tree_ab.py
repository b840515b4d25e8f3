"""Two or more revisions of the site side by side on this machine: each served from a checkout of
its own (a git worktree) on a database of its own, the revisions taking turns, each case between
two floors as `make bench` runs it, with this tree's wrk scripts for every revision.

    .venv/bin/python -m bench.tree_ab [--pairs 2] [--rounds 3] [--duration 3] REVISION REVISION … [--cases …]

Ratios to the floor are only comparable on one machine in one run, and a revision can change the
floor itself (issue 17 took the configuration's query off every page, the floor included): this
prints, for each case, each revision's ratios and requests/s, and the floor's requests/s, so a
change is judged by both. Revisions as git understands them (a commit, HEAD, main~3); the
catalog is 1k products; each revision needs `manage.py agents_config` and the agent API's
session endpoint (everything since the API existed), mcp.detail the MCP server.
"""
import argparse
import statistics
import subprocess
import tempfile
from pathlib import Path

from bench.bench import ROOT, Site, cases, make_sessions, run_phase

CASES = ["detail", "cart.add"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="+", help="two or more revisions (commits, branches, HEAD)")
    parser.add_argument("--cases", nargs="+", default=CASES)
    parser.add_argument("--pairs", type=int, default=2, help="turns of every revision")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=3, help="seconds per wrk run")
    options = parser.parse_args()
    if len(options.revisions) < 2:
        parser.error("name two revisions or more")
    with tempfile.TemporaryDirectory(prefix="acme-tree-ab-") as scratch:
        sites = []
        try:
            for number, revision in enumerate(options.revisions):
                sites.append(prepared_site(Path(scratch) / str(number), revision, options.cases))
            measured = [[] for _ in sites]
            for turn in range(options.pairs):
                order = range(len(sites)) if turn % 2 == 0 else reversed(range(len(sites)))
                for index in order:
                    print(f"{options.revisions[index]}, turn {turn + 1}/{options.pairs}", flush=True)
                    measured[index].append(measure(sites[index], options.cases, options.duration, options.rounds))
        finally:
            for site in sites:
                remove_checkout(site.root)
    print_table(options.revisions, options.cases, measured)


def prepared_site(scratch, revision, names):
    """A checkout of `revision` with its database migrated, 1k products and the bench's sessions."""
    checkout = scratch / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(checkout), revision], cwd=ROOT, check=True)
    try:
        site = Site(scratch / "site", root=checkout)
        prepare(site, scratch, names)
    except BaseException:
        remove_checkout(checkout)
        raise
    return site


def prepare(site, scratch, names):
    """Migrated, 1k products, and the sessions the cases spread their calls over (files in `scratch`)."""
    site.prepare()
    site.grow_catalog(1000)
    site.start()
    try:
        site.tokens, site.mcp_sessions = scratch / "tokens", scratch / "mcp-sessions"
        make_sessions(site, site.tokens)
        if "mcp.detail" in names:
            site.make_mcp_sessions(site.mcp_sessions)
    finally:
        site.stop()


def measure(site, names, seconds, rounds):
    """One turn of `site`: its gunicorn started afresh, the cases run as make bench runs them."""
    site.log = open(site.log.name, "a")
    site.start()
    try:
        return run_phase(site, names, cases(site.tokens, site.mcp_sessions), seconds, rounds)
    finally:
        site.stop()


def remove_checkout(checkout):
    subprocess.run(["git", "worktree", "remove", "--force", str(checkout)], cwd=ROOT, check=True)


def print_table(revisions, names, measured):
    """Per case and revision: the median of its rounds' ratios (each round's too), its requests/s
    and the floor's, medians over every turn."""
    width = max(len(revision) for revision in revisions)
    for name in names:
        print(f"\n{name}")
        for revision, turns in zip(revisions, measured):
            ratios = [ratio for turn in turns for ratio in turn[name]["ratio_to_floor_rounds"]]
            rps = [value for turn in turns for value in turn[name]["rps_rounds"]]
            floors = [value for turn in turns for value in turn[name]["floor_rps_rounds"]]
            print(f"  {revision:{width}}  x{statistics.median(ratios):.3f} the floor "
                  f"({'/'.join(f'{ratio:.2f}' for ratio in ratios)}), {statistics.median(rps):.0f}/s, "
                  f"floor {statistics.median(floors):.0f}/s")


if __name__ == "__main__":
    main()
