"""Benchmark: the simulator against the one loop that does its work, --jobs, exact odds.

    .venv/bin/python benchmarks/bench_simulation.py [--rounds N] [--pairs 10]
        [--jobs-rounds 40000000] [--jobs-pairs 3]

For the `classic` procedure and the `wizard` paytable (ten bets settled every round):

1. **The simulator against a fused kernel**: `simulate()` on one core against a numba
   function written here that draws its random words inline (PCG64), shuffles, deals and
   tallies in one loop — the least a compiled simulator can do; the ratio is the
   simulator's rate over the kernel's, in CPU time, over alternating pairs (median and
   range).
2. **--jobs 2 against --jobs 1** at 4×10⁷ rounds: wall time of `simulate()`, alternating
   pairs (the CPU time of each is printed beside: the work is the same). On a shared
   machine, `--when-idle 0.9` starts each run only once the CPU has been idle.
3. Rates beside a plain-Python loop: the simulator, its numpy fallback, the outcome
   sampler.
4. **Exact odds of all 16 preset pairings** (4 procedures × 4 paytables, computed and
   rendered), CPU time, against summing each outcome's fractions one by one (how
   `bet_odds` summed them before), alternating pairs.

Each figure depends on the machine and its load: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from quiet import load, wait_for_idle_cores

from andar_bahar.chance import dealing_kernels, odds
from andar_bahar.chance.odds import odds_report
from andar_bahar.chance.simulation import Engine, simulate
from andar_bahar.engine.bets import Bet
from andar_bahar.engine.paytables import PAYTABLES, find_paytable
from andar_bahar.engine.rules import PROCEDURES, Row, find_procedure
from andar_bahar.reports.odds_tables import render_odds

CLASSIC, WIZARD = find_procedure("classic"), find_paytable("wizard")


# -- the fused kernels -------------------------------------------------------------------


def fused_kernel() -> Callable[[int], Any]:
    """A numba kernel that draws PCG64 words inline, shuffles lazily, deals to the match and
    tallies; it returns the 200 counts of a run of *rounds* rounds of the classic procedure.
    (The same loop with xorshift64* inline instead was slower here: 20 against 24 million
    rounds a second.)"""
    import numba
    from numba.extending import intrinsic

    umulh = intrinsic(dealing_kernels.umulh_typer)
    u64 = np.uint64
    mult_hi, mult_lo = u64(2549297995355413924), u64(4865540595714422341)
    low32 = u64(0xFFFFFFFF)

    @numba.njit(nogil=True)
    def pcg64(rounds: int, sh: Any, sl: Any, ih: Any, il: Any) -> Any:
        counts = np.zeros(200, dtype=np.int64)
        deck = np.arange(52, dtype=np.int8)
        spare, have = u64(0), False
        for _ in range(rounds):
            target, k = -1, 0
            for j in range(52):
                n = u64(52 - j)
                while True:  # a word: the spare half of the last output, or a new output
                    if have:
                        word, have = spare, False
                    else:
                        lo = sl * mult_lo
                        hi = umulh(sl, mult_lo) + sh * mult_lo + sl * mult_hi
                        sl = lo + il
                        sh = hi + ih + (u64(1) if sl < lo else u64(0))
                        x = sh ^ sl
                        turn = sh >> u64(58)
                        out = (x >> turn) | (x << ((u64(64) - turn) & u64(63)))
                        word, spare, have = out & low32, out >> u64(32), True
                    m = word * n  # Lemire: accept unless in the 2**32 mod n biased words
                    if (m & low32) >= n or (m & low32) >= (u64(4294967296) - n) % n:
                        break
                i = j + np.int64(m >> u64(32))
                card = deck[i]
                deck[i] = deck[j]
                deck[j] = card
                if target < 0:
                    target = card >> 2
                elif card >> 2 == target:
                    k = j
                    break
            counts[(0 if k % 2 == 1 else 1) * 50 + k] += 1
        return counts

    seed = [u64(v) for v in (0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0, 1)]
    return lambda rounds: pcg64(rounds, *seed)


def cpu(work: Callable[[], object]) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def wall(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def kernel_ratio(rounds: int, pairs: int) -> None:
    kernel = fused_kernel()
    kernel(1000)  # compile
    simulate(CLASSIC, WIZARD, rounds=dealing_kernels.INTERPRETED_ROUNDS, seed=0, jobs=1)  # load
    times: dict[str, list[float]] = {"simulator": [], "fused kernel, PCG64 inline": []}
    for pair in range(pairs):  # alternate the order, so that neither always runs first
        runs = [
            ("simulator", lambda seed=pair: simulate(CLASSIC, WIZARD, rounds=rounds, seed=seed)),
            ("fused kernel, PCG64 inline", lambda: kernel(rounds)),
        ]
        for name, work in runs if pair % 2 == 0 else runs[::-1]:
            times[name].append(cpu(work))
    print(f"## The simulator against a fused kernel ({rounds:,} rounds, {pairs} pairs, CPU)")
    print()
    print("| loop | median rounds/s | range |")
    print("|---|---:|---:|")
    for name, spent in times.items():
        rates = [rounds / t for t in spent]
        print(f"| {name} | {statistics.median(rates):,.0f} | {min(rates):,.0f}–{max(rates):,.0f} |")
    ratios = [
        k / s for k, s in zip(times["fused kernel, PCG64 inline"], times["simulator"], strict=True)
    ]
    print()
    print(
        f"simulator / fused kernel: **{statistics.median(ratios):.2f}**"
        f" (pairs {min(ratios):.2f}–{max(ratios):.2f})"
    )


def jobs_speedup(rounds: int, pairs: int, idle: float | None) -> None:
    jobs: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    busy = 0
    for pair in range(pairs):
        for n in (1, 2) if pair % 2 == 0 else (2, 1):
            if idle is not None and not wait_for_idle_cores(idle):
                busy += 1
            started_cpu, started = time.process_time(), time.perf_counter()
            simulate(CLASSIC, WIZARD, rounds=rounds, seed=pair, jobs=n)
            jobs[n].append((time.perf_counter() - started, time.process_time() - started_cpu))
        print(
            f"pair {pair + 1}: --jobs 1 {jobs[1][-1][0]:.3f} s, --jobs 2 {jobs[2][-1][0]:.3f} s"
            f" wall (load {load()})",
            flush=True,
        )
    speedups = [one[0] / two[0] for one, two in zip(jobs[1], jobs[2], strict=True)]
    print(f"\n## --jobs 2 against --jobs 1 ({rounds:,} rounds, {pairs} pairs, wall time)")
    print()
    if idle is not None:
        print(
            f"(each run started after a second with {idle:.0%} of the CPU idle,"
            f" or after waiting 2 minutes in vain: {busy} of {2 * pairs} runs)"
        )
        print()
    for n, runs in jobs.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"- --jobs {n}: {statistics.median(walls):.3f} s wall,"
            f" {statistics.median(cpus):.3f} s CPU (median)"
        )
    print(
        f"- speed-up: **{statistics.median(speedups):.2f}×**"
        f" (pairs {min(speedups):.2f}–{max(speedups):.2f})"
    )
    for n, runs in jobs.items():
        had = [cpu / wall for wall, cpu in runs]
        print(f"- cores --jobs {n} had (CPU / wall): {statistics.median(had):.2f} (median)")
    work = statistics.median(two[1] / one[1] for one, two in zip(jobs[1], jobs[2], strict=True))
    print(
        f"- CPU of --jobs 2 / CPU of --jobs 1: {work:.3f}; with two idle cores the speed-up"
        f" would be about {2 / work:.2f}× (a shared machine gives --jobs 2 fewer)"
    )


# -- rates beside plain Python ---------------------------------------------------------


def plain_python(rounds: int, seed: int) -> float:
    """The baseline: what a careful Python programmer writes without numpy."""
    bets: list[Bet] = list(WIZARD.bets)
    rng = random.Random(seed)
    deck = list(range(52))
    wins = [0] * len(bets)
    started = time.process_time()
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
    return time.process_time() - started


def numpy_fallback(rounds: int) -> float:
    rng = np.random.default_rng(1)
    started = time.process_time()
    for done in range(0, rounds, 1 << 16):
        codes = dealing_kernels._deal_numpy(rng, min(1 << 16, rounds - done), False, 0)
        np.bincount(codes, minlength=200)
    return time.process_time() - started


def rates(rounds: int, baseline_rounds: int) -> None:
    base = baseline_rounds / plain_python(baseline_rounds, 1)
    rows = [
        ("plain Python loop (1 core)", base),
        (
            f"card-dealing simulator, {dealing_kernels.KERNEL} (1 core)",
            rounds / cpu(lambda: simulate(CLASSIC, WIZARD, rounds=rounds, seed=1)),
        ),
        (
            "card-dealing simulator, numpy fallback (1 core)",
            rounds / 10 / numpy_fallback(rounds // 10),
        ),
        (
            "outcome-sampling engine (1 core)",
            rounds
            * 5
            / cpu(
                lambda: simulate(CLASSIC, WIZARD, rounds=rounds * 5, seed=1, engine=Engine.OUTCOMES)
            ),
        ),
    ]
    print()
    print("## Settled rounds per second of CPU")
    print()
    print("| engine | settled rounds/s | × plain Python |")
    print("|---|---:|---:|")
    for name, rate in rows:
        print(f"| {name} | {rate:,.0f} | {rate / base:,.1f} |")


# -- exact odds ----------------------------------------------------------------------------


def _summed_outcome_by_outcome(
    bet: Bet, paytable: Any, distribution: odds.OutcomeDistribution, given: Any = None
) -> odds.BetOdds:
    """The comparator: each outcome's fraction added to the sums one at a time."""
    win, expected, squares = Fraction(0), Fraction(0), Fraction(0)
    for (first, winner, k), p in distribution.probabilities.items():
        if bet.wins(winner=winner, cards_dealt=k):
            to_one = paytable.odds_for(bet, first_row=first, cards_dealt=k).to_one
            win, expected, squares = win + p, expected + p * to_one, squares + p * to_one**2
        else:
            expected, squares = expected - p, squares + p
    return odds.BetOdds(bet, given, win, str(paytable.pays_text(bet)), expected, squares)


def all_pairings() -> list[str]:
    return [
        render_odds(odds_report(procedure, paytable))
        for procedure in PROCEDURES.values()
        for paytable in PAYTABLES.values()
    ]


def exact_odds(pairs: int) -> None:
    fast = odds.bet_odds
    slow: Any = _summed_outcome_by_outcome

    def with_(bet_odds: Any) -> Callable[[], list[str]]:
        def run() -> list[str]:
            odds.bet_odds = bet_odds
            try:
                return all_pairings()
            finally:
                odds.bet_odds = fast

        return run

    assert with_(slow)() == with_(fast)(), "the two ways must give the same reports"
    times: dict[str, list[float]] = {"now": [], "outcome by outcome": []}
    for pair in range(pairs):
        runs = [("now", with_(fast)), ("outcome by outcome", with_(slow))]
        for name, work in runs if pair % 2 == 0 else runs[::-1]:
            times[name].append(cpu(work))
    print()
    print(f"## Exact odds of all 16 preset pairings, computed and rendered ({pairs} pairs, CPU)")
    print()
    for name, spent in times.items():
        print(
            f"- {name}: {statistics.median(spent):.3f} s (range {min(spent):.3f}–{max(spent):.3f})"
        )
    speedups = [s / f for f, s in zip(times["now"], times["outcome by outcome"], strict=True)]
    print(
        f"- speed-up: {statistics.median(speedups):.2f}× (pairs {min(speedups):.2f}–{max(speedups):.2f})"
    )


def machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next(
                (line.split(":", 1)[1].strip() for line in info if line.startswith("model name")),
                model,
            )
    except OSError:
        pass
    return (
        f"{model}, {os.cpu_count()} cores visible, Python {platform.python_version()},"
        f" numpy {np.__version__}, kernel {dealing_kernels.KERNEL}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=10_000_000)
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--jobs-rounds", type=int, default=40_000_000)
    parser.add_argument("--jobs-pairs", type=int, default=3)
    parser.add_argument(
        "--when-idle",
        type=float,
        metavar="SHARE",
        help="start each --jobs run only after a second with this share of the CPU idle"
        " (e.g. 0.9 on a shared machine)",
    )
    parser.add_argument("--baseline-rounds", type=int, default=200_000)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"command: {' '.join(sys.argv)}")
    print(f"load average at the start: {load()}")
    print()
    kernel_ratio(args.rounds, args.pairs)
    jobs_speedup(args.jobs_rounds, args.jobs_pairs, args.when_idle)
    rates(args.rounds, args.baseline_rounds)
    exact_odds(args.pairs)
    print()
    print(f"load average at the end: {load()}")


if __name__ == "__main__":
    main()
