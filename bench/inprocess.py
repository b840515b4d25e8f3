"""Microseconds per agent API call in process: Django's test client through the whole
middleware stack, no server and no network, so two trees can be compared call for call.

    DATA_DIR=var .venv/bin/python -m bench.inprocess [--calls 1500] [--rounds 7]

Runs against the database of DATA_DIR (migrated, with a catalog: `make demo`), with rate
limiting off so nothing is refused. Prints the median and every round for detail, a search
and an unknown path (the 404 envelope). docs/performance.md uses it.
"""
import argparse
import os
import statistics
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1500, help="calls per round")
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "acme.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.test import Client

    from catalog.models import Product

    settings.RATELIMIT_ENABLE = False
    client = Client()
    item = Product.objects.filter(is_active=True).order_by("pk").values_list("public_id", flat=True).first()
    if item is None:
        raise SystemExit("No product in this database: run `make demo` (or load a catalog) first.")
    api = "/.well-known/agents/api"
    cases = {
        "detail": lambda: client.get(f"{api}/detail/{item}"),
        "search": lambda: client.get(f"{api}/search", {"q": "mug", "limit": 5}),
        "unknown path (404)": lambda: client.get(f"{api}/teleport"),
    }
    for name, call in cases.items():
        assert call().status_code in (200, 404), name
        rounds = [per_call_us(call, options.calls) for _ in range(options.rounds)]
        print(f"{name}: median {statistics.median(rounds):.1f} us/call "
              f"(rounds {', '.join(f'{r:.0f}' for r in rounds)})")


def per_call_us(call, calls):
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - started) / calls * 1e6


if __name__ == "__main__":
    import logging

    logging.disable(logging.WARNING)  # the 404s would log a line each
    main()
