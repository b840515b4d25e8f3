"""What recording agent calls for the activity page costs the bench's cases: the site with
and without recording (ACTIVITY_BUFFER_SIZE 0), alternating, each case between two floors as
`make bench` runs it.

    .venv/bin/python -m bench.recording_ab [--pairs 2] [--rounds 2] [--duration 3] [case …]

Prints, for each case, the ratios to the floor of every site with recording and without, and
the mean of the first over the mean of the second. agents.json records nothing: how far it moves
is the noise. docs/performance.md ("What recording costs a call") has the numbers.
"""
import argparse
import statistics
import tempfile
from pathlib import Path

from bench.bench import Site, cases, make_sessions, run_phase

CASES = ["agents.json", "detail", "mcp.detail", "browse", "search", "cart.add", "cart.view"]
WITHOUT_RECORDING = """from acme.settings import *  # noqa: F403
AGENTS_PROTOCOL = {**AGENTS_PROTOCOL, "ACTIVITY_BUFFER_SIZE": 0}  # noqa: F405
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2, help="sites with and without recording, each")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--duration", type=int, default=3, help="seconds per wrk run")
    parser.add_argument("cases", nargs="*", default=CASES)
    options = parser.parse_args()
    ratios = {variant: {name: [] for name in options.cases} for variant in ("with", "without")}
    for pair in range(options.pairs):
        for variant in ("with", "without") if pair % 2 == 0 else ("without", "with"):
            measured = measure(variant == "with", options.cases, options.duration, options.rounds)
            for name in options.cases:
                ratios[variant][name].append(measured[name]["ratio_to_floor"])
    for name in options.cases:
        with_, without = ratios["with"][name], ratios["without"][name]
        print(f"{name}: with recording {with_}, without {without}, "
              f"with / without {statistics.mean(with_) / statistics.mean(without):.3f}")


def measure(recording, names, seconds, rounds):
    """One site (1k products), its cases run as make bench runs them: {case: summary}."""
    with tempfile.TemporaryDirectory(prefix="acme-recording-ab-") as scratch:
        scratch = Path(scratch)
        env = {}
        if not recording:
            (scratch / "without_recording_settings.py").write_text(WITHOUT_RECORDING)
            env = {"DJANGO_SETTINGS_MODULE": "without_recording_settings", "PYTHONPATH": str(scratch)}
        site = Site(scratch / "site", **env)
        site.prepare()
        site.grow_catalog(1000)
        site.start()
        try:
            tokens, mcp_sessions = scratch / "tokens", scratch / "mcp-sessions"
            make_sessions(site, tokens)
            site.make_mcp_sessions(mcp_sessions)
            return run_phase(site, names, cases(tokens, mcp_sessions), seconds, rounds)
        finally:
            site.stop()


if __name__ == "__main__":
    main()
