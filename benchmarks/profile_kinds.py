"""Where the web server's CPU goes, by kind of work: a py-spy profile summed up.

    .venv/bin/python benchmarks/bench_web_load.py --mode saturate --tables 10 --rounds 5 \\
        --py-spy /tmp/prof                                   # writes /tmp/prof.saturate.txt
    .venv/bin/python benchmarks/profile_kinds.py /tmp/prof.saturate.txt [--counts JSON] [--tree NAME]

The profile holds samples of the thread that held the GIL (``py-spy record --gil
--format raw``: collapsed stacks, 250 a second), so the seconds below are the Python
CPU time of the server — the one core a Python process can use — whatever else ran on
the machine. Each sample goes to the first of these that its stack holds: a route (the
bet, the dealer's steps, the floor …; its answer included), the live render of a table
(``Room._render``: reading the table, drawing the blocks, making the messages), the
sockets (``serve_follower``, the WebSocket protocol), the middleware and the framework
outside the routes (parsing, CSRF, headers), uvicorn's HTTP protocol, the event loop.

``--counts`` (the benchmark's JSON) divides by the number of requests of each kind and
by the live messages; ``--tree NAME`` prints the call tree under a kind.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

RATE = 250.0
ROUTE = re.compile(r"(?:register|_add_\w+)\.<locals>\.(\w+) \(andar_bahar/web/")
ROUTE_KINDS = {"bet": "bet", "round_action": "dealer step", "floor": "floor"}
BY_FRAME = (
    ("durable_insert", "floor"),
    ("Room._render", "live render"),
    ("serve_follower", "sockets"),
    ("websockets", "sockets"),
    ("WebMiddleware", "middleware and framework"),
    ("httptools_impl", "uvicorn HTTP"),
    ("h11_impl", "uvicorn HTTP"),
    ("Room.", "hub"),
    ("Hub.", "hub"),
)


ROOTS = (
    "register.<locals>",
    "_add_playing.<locals>",
    "Room._render",
    "serve_follower",
    "WebMiddleware",
    "durable_insert",
)
"""Where a kind's call tree starts."""


def kind_of(stack: str) -> str:
    route = ROUTE.search(stack)
    if route:
        return ROUTE_KINDS.get(route.group(1), f"route {route.group(1)}")
    for frame, kind in BY_FRAME:
        if frame in stack:
            return kind
    return "event loop and other"


def read(path: Path) -> list[tuple[str, int]]:
    samples = []
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            samples.append((stack, int(count)))
    return samples


def tree(samples: list[tuple[str, int]], kind: str, depth: int = 14, least: int = 4) -> None:
    counts: dict[tuple[str, ...], int] = defaultdict(int)
    for stack, n in samples:
        if kind_of(stack) != kind:
            continue
        frames = [re.sub(r" \((?:.*/)?([^/]+?):\d+\)", r" [\1]", f) for f in stack.split(";")]
        start = next((i for i, f in enumerate(frames) if any(m in f for m in ROOTS)), 0)
        path = tuple(frames[start : start + depth])
        for d in range(1, len(path) + 1):
            counts[path[:d]] += n

    def show(prefix: tuple[str, ...]) -> None:
        children = [k for k in counts if len(k) == len(prefix) + 1 and k[: len(prefix)] == prefix]
        for child in sorted(children, key=lambda k: -counts[k]):
            if counts[child] >= least:
                print(f"{'  ' * len(prefix)}{counts[child] / RATE * 1000:8.0f} ms  {child[-1]}")
                show(child)

    show(())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profile", type=Path)
    parser.add_argument("--counts", type=Path, help="the benchmark's JSON (--format json)")
    parser.add_argument("--mode", default="saturate", help="the run of --counts (saturate)")
    parser.add_argument("--tree", help="print the call tree under this kind")
    args = parser.parse_args()
    samples = read(args.profile)
    by_kind: Counter[str] = Counter()
    for stack, n in samples:
        by_kind[kind_of(stack)] += n
    total = sum(by_kind.values())
    counts: dict[str, int] = {}
    if args.counts:
        run = json.loads(args.counts.read_text())["runs"][args.mode]
        counts = {"bet": run["latency_ms"]["bet"]["count"] + run["latency_ms"]["bet again"]["count"],
                  "dealer step": sum(run["latency_ms"][k]["count"] for k in ("open", "deal", "settle")),
                  "live render": run["live_messages"], "sockets": run["live_messages"]}  # fmt: skip
    print(f"{total / RATE:.2f} s of Python CPU (GIL held) in {total} samples\n")
    print("| kind | CPU s | share | per request (or message) |\n|---|---:|---:|---:|")
    for kind, n in by_kind.most_common():
        each = f"{n / RATE * 1000 / counts[kind]:.3f} ms" if counts.get(kind) else ""
        print(f"| {kind} | {n / RATE:.2f} | {n / total:.0%} | {each} |")
    if args.tree:
        print()
        tree(samples, args.tree)


if __name__ == "__main__":
    main()
