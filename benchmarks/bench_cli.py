"""Benchmark: what each command costs to start, in CPU time of the child process.

    .venv/bin/python benchmarks/bench_cli.py [--runs 11] [--against OTHER/src]

Runs every command as a fresh ``python -m andar_bahar …`` (after one warm-up run that
compiles what is compiled once: bytecode, the catalogues, numba's kernel) and prints the
median CPU time of the child (user + system, from ``getrusage(RUSAGE_CHILDREN)``) and its
median wall time, beside ``python -c pass``. ``serve`` is timed from its start to its
first answer to ``GET /`` on a made database (as when a club's server restarts: the
warm-up run makes it, in a data folder of each side's own; the CPU includes stopping it).

``--against SRC`` runs each command also from another checkout's ``src`` (by
``PYTHONPATH``), alternating the two, and prints the ratio of their median CPU.
``--when-idle 0.9`` starts each run only after a second with 90 % of the CPU idle.
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from quiet import load, wait_for_idle_cores

SETTLE = "settle --paytable wizard --cards 5♠_2♦_3♣_9♥_J♦_6♣_8♠_5♥ --bet andar=120"
COMMANDS: dict[str, list[str]] = {
    name: [arg.replace("_", " ") for arg in line.split()]
    for name, line in {
        "--help": "--help",
        "deal": "deal --seed 7",
        "settle": SETTLE + " --bet cards:6-10=100",
        "odds": "odds --procedure classic",
        "paytable design": "paytable design --procedure first-card",
        "simulate --rounds 1": "simulate --rounds 1 --seed 1 --jobs 1",
        "simulate --rounds 20000 (loads numba)": "simulate --rounds 20000 --seed 1 --jobs 1",
    }.items()
}
"""What each command runs with (``_`` stands for a space within an argument)."""


def environment(src: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if src is not None:
        env["PYTHONPATH"] = src
    return env


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(argv: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU, wall) seconds of one run of *argv*."""
    cpu, started = children_cpu(), time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return children_cpu() - cpu, time.perf_counter() - started


def serve_once(env: dict[str, str], folder: Path) -> tuple[float, float]:
    """(CPU, seconds to the first answer) of ``serve`` on the database in *folder*."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [sys.executable, "-m", "andar_bahar", "serve", "--port", str(port)]
    cpu, started = children_cpu(), time.perf_counter()
    server = subprocess.Popen(
        [*argv, "--db", str(folder / "club.sqlite3")],
        env={**env, "XDG_DATA_HOME": str(folder)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
                    page.read()
                break
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError("serve stopped before answering") from None
                time.sleep(0.005)
        answered = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait()
    return children_cpu() - cpu, answered


def measure(name: str, env: dict[str, str], folder: Path) -> tuple[float, float]:
    if name == "serve (first answer)":
        return serve_once(env, folder)
    if name == "python -c pass":
        return run_once([sys.executable, "-c", "pass"], env)
    return run_once([sys.executable, "-m", "andar_bahar", *COMMANDS[name]], env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--against", help="another checkout's src folder to compare with")
    parser.add_argument(
        "--when-idle",
        type=float,
        metavar="SHARE",
        help="start each run only after a second with this share of the CPU idle (e.g. 0.9)",
    )
    args = parser.parse_args()
    sides = {"this": environment(None)}
    if args.against:
        sides["against"] = environment(str(Path(args.against).resolve()))
    names = ["python -c pass", *COMMANDS, "serve (first answer)"]
    print(f"command: {' '.join(sys.argv)}")
    print(f"load average at the start: {load()}")
    results: dict[str, dict[str, list[tuple[float, float]]]] = {}
    with tempfile.TemporaryDirectory() as data:
        folders = {side: Path(data) / side for side in sides}
        for folder in folders.values():
            folder.mkdir()
        for name in names:
            for side, env in sides.items():
                measure(name, env, folders[side])  # warm-up: bytecode, catalogues, numba, database
            results[name] = {side: [] for side in sides}
            for run in range(args.runs):
                order = list(sides.items()) if run % 2 == 0 else list(sides.items())[::-1]
                for side, env in order:
                    if args.when_idle is not None:
                        wait_for_idle_cores(args.when_idle)
                    results[name][side].append(measure(name, env, folders[side]))
    print()
    header = "| command | CPU s (median) | wall s (median) |"
    rule = "|---|---:|---:|"
    if args.against:
        header += " CPU s, --against | CPU ratio |"
        rule += "---:|---:|"
    print(header)
    print(rule)
    for name, by_side in results.items():
        cpu = statistics.median(c for c, _ in by_side["this"])
        line = f"| {name} | {cpu:.3f} | {statistics.median(w for _, w in by_side['this']):.3f} |"
        if args.against:
            other = statistics.median(c for c, _ in by_side["against"])
            line += f" {other:.3f} | {cpu / other:.2f} |"
        print(line)
    print()
    print(f"load average at the end: {load()}")


if __name__ == "__main__":
    main()
