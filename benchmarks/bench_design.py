"""Benchmark: CPU time of ``paytable design`` at the stakes a table allows.

    .venv/bin/python benchmarks/bench_design.py [--pairs 10] [--limits 1-500]

For every preset procedure and both bet windows, a 1 %–5 % design on the 0.05 step for a
table with chip 1, wins rounded down and the given limits, timed in CPU time
(``time.process_time``), two ways alternating in one process:

- *structure*: the designer as shipped — the edge at every stake from the L classes of
  stakes (``chance/stake_edges``), one step per class;
- *scan*: the same search with every candidate pay followed through every allowed stake
  one by one (the comparator: what the designer would cost without the structure).

Both must give the same table; the structure's worst design must stay under one second.
Each line: the median over the pairs, and the spread (lowest–highest).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction

from andar_bahar.chance import design_search
from andar_bahar.chance.design import EdgeRange, design_paytable
from andar_bahar.chance.odds import BetPays
from andar_bahar.chance.stake_edges import ENDLESS, EdgeAt, Misses, StakeRange
from andar_bahar.engine.paytables import Odds, Paytable, Rounding
from andar_bahar.engine.rules import PROCEDURES, BetWindow, Procedure


class ScannedProfile:
    """The comparator: a bet's edge at every stake, each stake worked out on its own."""

    def __init__(self, pays: BetPays, rounding: Rounding, stakes: StakeRange) -> None:
        assert stakes.last is not None, "the scan needs a table maximum"
        self.edges = {
            n: pays.lose - sum((p * rounding.apply(n * x) for x, p in pays.wins), Fraction(0)) / n
            for n in range(stakes.first, stakes.last + 1)
        }

    def _out(self, low: Fraction | None, high: Fraction | None) -> list[int]:
        return [
            n
            for n, e in self.edges.items()
            if (low is not None and e < low) or (high is not None and e > high)
        ]

    def last_miss(self, low: Fraction | None, high: Fraction | None) -> int | None:
        out = self._out(low, high)
        return max(out) if out else None

    def misses(self, low: Fraction | None, high: Fraction | None, *, limit: int = 10_000) -> Misses:
        return Misses(tuple(self._out(low, high)[:limit]), False, None)

    def extremes(self) -> tuple[EdgeAt, EdgeAt]:
        low = min(self.edges.items(), key=lambda item: (item[1], item[0]))
        high = min(self.edges.items(), key=lambda item: (-item[1], item[0]))
        return EdgeAt(low[1], low[0]), EdgeAt(high[1], high[0])


@contextmanager
def scanning() -> Iterator[None]:
    """The designer's search with :class:`ScannedProfile` in place of the structure."""
    original = design_search.EdgeProfile
    design_search.EdgeProfile = ScannedProfile  # type: ignore[assignment,misc]
    try:
        yield
    finally:
        design_search.EdgeProfile = original  # type: ignore[misc]


def one_design(procedure: Procedure, base: Paytable) -> tuple[float, Paytable]:
    started = time.process_time()
    design = design_paytable(procedure, edge=EdgeRange.parse("1%-5%"), base=base)
    return time.process_time() - started, design.paytable


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10, help="alternating timed pairs")
    parser.add_argument("--limits", default="1-500", help="the table's minimum-maximum")
    args = parser.parse_args()
    low, high = (Decimal(x) for x in args.limits.split("-"))
    base = Paytable(name="club", main=(Odds.parse(1), Odds.parse(1)), min_stake=low, max_stake=high)
    assert ENDLESS < 0
    print(f"limits {low}–{high}, chip 1, rounded down; CPU seconds per design, median (spread)")
    print(f"{'procedure':<28} {'structure':>22} {'scan':>22} {'ratio':>7}")
    worst = 0.0
    for name, preset in PROCEDURES.items():
        for window in BetWindow:
            procedure = preset.overridden(window=window)
            fast: list[float] = []
            slow: list[float] = []
            for _ in range(args.pairs):
                took, table = one_design(procedure, base)
                fast.append(took)
                with scanning():
                    took, scanned = one_design(procedure, base)
                slow.append(took)
                assert scanned == table, (name, window)
            worst = max(worst, max(fast))
            line = f"{name} {window.value}"
            ratio = statistics.median(slow) / statistics.median(fast)
            print(f"{line:<28} {_spread(fast):>22} {_spread(slow):>22} {ratio:>6.0f}×")
    print(f"slowest structure design: {worst:.3f} s (must stay under 1 s)")
    assert worst < 1


def _spread(times: list[float]) -> str:
    return f"{statistics.median(times):.3f} ({min(times):.3f}–{max(times):.3f})"


if __name__ == "__main__":
    main()
