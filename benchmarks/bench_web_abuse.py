"""A phone's bets beside rude clients: slow requests, a flood of messages, a flood of pings.

    .venv/bin/python benchmarks/bench_web_abuse.py [--bets 100] [--slow 300] [--floods 30]
        [--src PATH] [--format text|json]

Starts ``andar-bahar serve`` (its uvicorn protocols and settings) on a fresh SQLite file
in a temporary folder, opens a table with a round, seats a phone, and times the phone's
bets (one after another, over one connection, as a phone taps):

- **alone** — ``--bets`` bets, nothing else on the server;
- **beside slow clients** — the same, while ``--slow`` connections dribble a request's
  headers and as many a bet's body, a byte every half second each (then: how many the
  server had closed, and after how long);
- **beside a message flood** and **beside a ping flood** — ``--floods`` bets, each sent as
  20,000 text messages (or WebSocket ping frames) arrive at once on one socket, a new
  socket each time, opened and caught up beforehand (the flood is measured, not the
  connection); and the close code each flood got.

Each line gives the bets' p50, p90 and largest latency in milliseconds, and the run ends
with the load average (a shared host moves every figure). ``--src`` runs the server from
another checkout's ``src`` (``git archive REV src | tar -x -C /tmp/rev``), to compare.
The scenarios are the ones ``tests/test_web_bounds.py`` asserts (``tests/abuse_support.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from abuse_support import Flood, SlowClients, Table
from serve_process import ServeProcess


def summary(seconds: list[float]) -> dict[str, float]:
    """p50, p90 and the largest of *seconds*, in milliseconds."""
    ms = sorted(s * 1000 for s in seconds)
    return {
        "p50": round(statistics.median(ms), 1),
        "p90": round(ms[max(0, round(0.9 * len(ms)) - 1)], 1),
        "max": round(ms[-1], 1),
    }


def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    if args.src:  # the server's code only: this script's helpers stay this checkout's
        os.environ["PYTHONPATH"] = str(Path(args.src).resolve())
    server = ServeProcess(f"sqlite:///{folder / 'club.sqlite3'}", folder, "abuse")
    out: dict[str, Any] = {"load_average_before": [round(x, 2) for x in os.getloadavg()]}
    try:
        server.wait_ready()
        table = Table(server.base)
        table.bet_latencies(10)  # warm: the server's caches, the connection
        out["alone"] = summary(table.bet_latencies(args.bets))
        slow = SlowClients(server.port, table.code, args.slow)
        out["beside slow clients"] = summary(table.bet_latencies(args.bets))
        lived = slow.wait_closed(bound=30, strict=False)
        out["slow clients closed"] = f"{len(lived)} of {2 * args.slow}"
        if lived:
            out["slow clients closed after (s)"] = [round(min(lived), 2), round(max(lived), 2)]
        for name, opcode in (("message flood", 0x1), ("ping flood", 0x9)):
            took, codes = [], []
            for _ in range(args.floods):
                flood = Flood(server.port, table.code, opcode, patience=3)
                flood.blast()
                took += table.bet_latencies(1)
                codes.append(flood.end())
            out[f"beside a {name}"] = summary(took)
            out[f"{name}: close codes"] = {str(code): codes.count(code) for code in set(codes)}
    finally:
        server.stop()
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bets", type=int, default=100, help="bets in each timed sample")
    parser.add_argument("--slow", type=int, default=300, help="slow clients of each kind")
    parser.add_argument("--floods", type=int, default=30, help="floods, one bet beside each")
    parser.add_argument("--src", help="run the server from this src folder (another checkout)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="andar-bahar-abuse-") as folder:
        started = time.monotonic()
        result = run(args, Path(folder))
        result["seconds"] = round(time.monotonic() - started, 1)
    if args.format == "json":
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:32} {value}")


if __name__ == "__main__":
    main()
