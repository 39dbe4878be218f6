"""Benchmark: settled rounds per second per core, side by side in one process.

    .venv/bin/python benchmarks/bench_simulation.py [--rounds N]

Compares, on one core, for the `classic` procedure and the `wizard` paytable
(ten bets settled every round):

- a plain-Python loop: shuffle a list, deal until the match, settle every bet;
- the card-dealing simulator (numba kernel when installed, and the numpy fallback);
- the outcome-sampling engine;
- the card-dealing simulator on every core (--jobs);

and the time to compute and print the exact odds of every preset pairing.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import subprocess
import sys
import time
from fractions import Fraction

import numpy as np

from andar_bahar.chance import dealing_kernels
from andar_bahar.chance.odds import odds_report
from andar_bahar.chance.simulation import Engine, default_jobs, simulate
from andar_bahar.engine.bets import Bet
from andar_bahar.engine.paytables import PAYTABLES, find_paytable
from andar_bahar.engine.rules import PROCEDURES, Row, find_procedure
from andar_bahar.reports.odds_tables import render_odds


def plain_python(rounds: int, seed: int) -> tuple[float, list[int]]:
    """The baseline: what a careful Python programmer writes without numpy."""
    paytable = find_paytable("wizard")
    bets: list[Bet] = list(paytable.bets)
    odds = [paytable.odds_for(bet, first_row=Row.ANDAR).to_one for bet in bets]
    rng = random.Random(seed)
    deck = list(range(52))
    wins = [0] * len(bets)
    started = time.perf_counter()
    for _ in range(rounds):
        rng.shuffle(deck)
        target = deck[0] >> 2
        k = 1
        while deck[k] >> 2 != target:
            k += 1
        winner = Row.ANDAR if k % 2 else Row.BAHAR
        for index, bet in enumerate(bets):
            if bet.wins(winner=winner, cards_dealt=k):
                wins[index] += 1
    # the return of each bet, exactly, from the integer counts (as the simulator does)
    returns = [w * o - (rounds - w) for w, o in zip(wins, odds, strict=True)]
    assert all(isinstance(r, Fraction) for r in returns)
    return time.perf_counter() - started, wins


def timed_simulation(rounds: int, engine: Engine, jobs: int) -> float:
    procedure, paytable = find_procedure("classic"), find_paytable("wizard")
    simulate(procedure, paytable, rounds=10_000, seed=0, engine=engine)  # compile, warm up
    started = time.perf_counter()
    simulate(procedure, paytable, rounds=rounds, seed=1, engine=engine, jobs=jobs)
    return time.perf_counter() - started


def timed_numpy_fallback(rounds: int) -> float:
    rng = np.random.default_rng(1)
    started = time.perf_counter()
    for done in range(0, rounds, 1 << 16):
        codes = dealing_kernels._deal_numpy(rng, min(1 << 16, rounds - done), False, 0)
        np.bincount(codes, minlength=200)
    return time.perf_counter() - started


def exact_odds_time() -> tuple[float, int]:
    started = time.perf_counter()
    count = 0
    for procedure in PROCEDURES.values():
        for paytable in PAYTABLES.values():
            render_odds(odds_report(procedure, paytable))
            count += 1
    return time.perf_counter() - started, count


def cli_odds_time() -> float:
    exe = os.path.join(os.path.dirname(sys.executable), "andar-bahar")
    started = time.perf_counter()
    subprocess.run([exe, "odds", "--procedure", "classic"], check=True, capture_output=True)
    return time.perf_counter() - started


def machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores visible, Python {platform.python_version()}, numpy {np.__version__}, kernel {dealing_kernels.KERNEL}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=10_000_000)
    parser.add_argument("--baseline-rounds", type=int, default=200_000)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"command: {' '.join(sys.argv)}")
    base_time, _ = plain_python(args.baseline_rounds, 1)
    base = args.baseline_rounds / base_time
    rows = [("plain Python loop (1 core)", base)]
    rows.append(
        (
            f"card-dealing simulator, {dealing_kernels.KERNEL} (1 core)",
            args.rounds / timed_simulation(args.rounds, Engine.CARDS, 1),
        )
    )
    fallback_rounds = max(1, args.rounds // 10)
    rows.append(
        (
            "card-dealing simulator, numpy fallback (1 core)",
            fallback_rounds / timed_numpy_fallback(fallback_rounds),
        )
    )
    sample_rounds = args.rounds * 5
    rows.append(
        (
            "outcome-sampling engine (1 core)",
            sample_rounds / timed_simulation(sample_rounds, Engine.OUTCOMES, 1),
        )
    )
    jobs = default_jobs()
    if jobs > 1:
        rows.append(
            (
                f"card-dealing simulator, {dealing_kernels.KERNEL} ({jobs} processes)",
                args.rounds * 2 / timed_simulation(args.rounds * 2, Engine.CARDS, jobs),
            )
        )
    print()
    print("| engine | settled rounds/s | × plain Python |")
    print("|---|---:|---:|")
    for name, rate in rows:
        print(f"| {name} | {rate:,.0f} | {rate / base:,.1f} |")
    seconds, pairings = exact_odds_time()
    print()
    print(
        f"exact odds of all {pairings} preset pairings (procedure × paytable), computed and rendered: {seconds:.3f} s"
    )
    print(
        f"`andar-bahar odds --procedure classic` as a process, wall time: {cli_odds_time():.3f} s"
    )


if __name__ == "__main__":
    main()
