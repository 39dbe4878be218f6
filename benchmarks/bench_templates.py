"""Benchmark: what loading every page template costs a starting server, compiled on the spot
or from the compiled copies kept in the cache folder.

    .venv/bin/python benchmarks/bench_templates.py [--pairs 10]

Each run is a fresh ``python -c`` that makes the web pages' environment and calls
``warm_up`` (every template, every language's catalogue), timing that call in the child's
CPU time. *Cold* runs get an empty cache folder of their own (``XDG_CACHE_HOME``), so they
compile the templates and the catalogues; *kept* runs share one folder filled by a first
run. The two alternate, pair by pair, and the medians and ranges are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = """
import time
from andar_bahar.web.http.templating import make_environment, warm_up
env = make_environment()
started = time.process_time()
warm_up(env)
print(time.process_time() - started)
"""


def warm_up_cpu(cache_home: str) -> float:
    """CPU seconds of ``warm_up`` in a fresh process whose cache folder is *cache_home*."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["XDG_CACHE_HOME"] = cache_home
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True
    )
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        kept_home = os.path.join(root, "kept")
        warm_up_cpu(kept_home)  # fills the kept folder (and writes the package's bytecode)
        runs: dict[str, list[float]] = {"cold": [], "kept": []}
        for pair in range(args.pairs):
            sides = ["cold", "kept"] if pair % 2 == 0 else ["kept", "cold"]
            for side in sides:
                home = kept_home if side == "kept" else os.path.join(root, f"cold-{pair}")
                runs[side].append(warm_up_cpu(home))
    print(f"command: {' '.join(sys.argv)}")
    print("| templates loaded | CPU s (median) | range |")
    print("|---|---:|---:|")
    for side, label in (("cold", "compiled on the spot"), ("kept", "from the cache folder")):
        times = runs[side]
        print(f"| {label} | {statistics.median(times):.3f} | {min(times):.3f}–{max(times):.3f} |")


if __name__ == "__main__":
    main()
