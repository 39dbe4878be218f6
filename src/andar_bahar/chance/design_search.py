"""How the paytable designer searches: a bet's return as a linear function of its pays,
the pays a club can write, and for each candidate pay the smallest table minimum from
which its house edge stays in range at every stake (:mod:`andar_bahar.chance.design`
puts the table together).

A bet's return in one situation (overall, or once the centre's colour is seen) is
``Σ coefficient × pay + fixed − lose``, so at exact pays the pays that keep its edge in a
range form an interval. At a real stake each win is rounded to the chip; the edge at every
stake the table allows follows from the structure of the rounded wins
(:class:`~andar_bahar.chance.stake_edges.EdgeProfile`: one step per class of stakes, not
one per stake). Where the table allows at least one whole period of stakes (the least
common multiple L of the pays' denominators, in chips), the edge at every multiple of L is
the exact one, so only the pays whose exact edge lies in range can serve; the search then
widens only where a shorter run of stakes could be served by another pay.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from andar_bahar.chance.design_inputs import EdgeRange, OddsStyle
from andar_bahar.chance.odds import BetPays, OutcomeDistribution, centre_probability
from andar_bahar.chance.stake_edges import ENDLESS, EdgeProfile, Misses, StakeRange
from andar_bahar.engine.bets import CardsBet, CentreBet, MainBet
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.money import MAX_PLACES, format_amount, to_decimal
from andar_bahar.engine.paytables import MAX_ODDS, MainKey, Odds, Paytable, Rounding
from andar_bahar.engine.rules import Row

__all__ = [
    "Candidate",
    "Grid",
    "Line",
    "Search",
    "Situation",
    "band_line",
    "centre_line",
    "fixed_period",
    "interval",
    "main_line",
    "union",
]


@dataclass(frozen=True, slots=True)
class Situation:
    """What a player can see when betting: nothing yet, or the centre card's colour."""

    given: Colour | None
    distribution: OutcomeDistribution


@dataclass(frozen=True, slots=True)
class Line:
    """A bet's return in one situation: ``Σ coefficient × pay + Σ fixed − lose``."""

    given: Colour | None
    coefficients: tuple[Fraction, ...]
    """P(win paid at the pay of each slot being designed)."""
    fixed: tuple[tuple[Fraction, Fraction], ...]
    """``(pay, probability)`` of the wins paid at a pay kept from the base table."""
    lose: Fraction

    def edge(self, pays: Sequence[Fraction]) -> Fraction:
        """The house edge at exact pays."""
        value = sum((c * x for c, x in zip(self.coefficients, pays, strict=True)), Fraction(0))
        return self.lose - self.base - value

    @property
    def base(self) -> Fraction:
        """What the fixed wins return."""
        return sum((p * x for x, p in self.fixed), Fraction(0))

    @property
    def wins(self) -> Fraction:
        """P(win) at any pay."""
        return sum(self.coefficients, Fraction(0)) + sum((p for _, p in self.fixed), Fraction(0))

    def bet_pays(self, pays: Sequence[Fraction]) -> BetPays:
        merged: dict[Fraction, Fraction] = {}
        for x, p in (*zip(pays, self.coefficients, strict=True), *self.fixed):
            if p:
                merged[x] = merged.get(x, Fraction(0)) + p
        return BetPays(tuple(sorted(merged.items())), self.lose)

    def only(self, slot: int) -> Line:
        """The line with only *slot*'s pay as the variable (a row-keyed main bet)."""
        return Line(self.given, (self.coefficients[slot],), self.fixed, self.lose)

    def fixing(self, pay: Fraction) -> Line:
        """The line with the first slot's pay fixed at *pay*, the second the variable."""
        fixed = (*self.fixed, (pay, self.coefficients[0])) if self.coefficients[0] else self.fixed
        return Line(self.given, self.coefficients[1:], fixed, self.lose)


def main_line(bet: MainBet, keyed_by: MainKey, base: Paytable, situation: Situation) -> Line:
    """Andar/Bahar in one situation; the slots are (Andar, Bahar) or (first row, other row)."""
    coefficients = [Fraction(0), Fraction(0)]
    fixed: dict[Fraction, Fraction] = {}
    lose = Fraction(0)
    for (first, winner, k), p in situation.distribution.probabilities.items():
        if not bet.wins(winner=winner, cards_dealt=k):
            lose += p
            continue
        if keyed_by is MainKey.ROW:
            slot = 0 if bet.row is Row.ANDAR else 1
        else:
            slot = 0 if winner is first else 1
        special = next(
            (c.main[slot] for c in base.main_by_count if c.covers(k) and c.main[slot]), None
        )
        if special is not None:
            fixed[special.to_one] = fixed.get(special.to_one, Fraction(0)) + p
        else:
            coefficients[slot] += p
    return Line(situation.given, tuple(coefficients), tuple(sorted(fixed.items())), lose)


def band_line(bet: CardsBet, situation: Situation) -> Line:
    win = situation.distribution.probability_of_band(bet.low, bet.high)
    return Line(situation.given, (win,), (), 1 - win)


def centre_line(bet: CentreBet) -> Line:
    """A bet on the centre card: decided before the deal, so one situation (nothing seen)."""
    win = centre_probability(bet)
    return Line(None, (win,), (), 1 - win)


@dataclass(frozen=True, slots=True)
class Grid:
    """The pays a club can write: multiples of *step* in its style, paying more than nothing."""

    step: Fraction
    style: OddsStyle

    def offset(self) -> Fraction:
        return Fraction(1) if self.style is OddsStyle.FOR else Fraction(0)

    def to_one(self, k: int) -> Fraction:
        return k * self.step - self.offset()

    def first(self) -> int:
        """The smallest k that pays more than nothing."""
        return math.floor(self.offset() / self.step) + 1

    def at_least(self, x: Fraction) -> int:
        return max(self.first(), math.ceil((x + self.offset()) / self.step))

    def at_most(self, x: Fraction) -> int:
        return math.floor((x + self.offset()) / self.step)

    def odds(self, k: int) -> Odds:
        """The pay of *k* steps, written in the club's style (a fraction when no decimal is)."""
        value = k * self.step
        if 10**MAX_PLACES % value.denominator == 0:
            number = format_amount(to_decimal(value))
        else:
            number = f"{value.numerator}/{value.denominator}"
        return Odds.parse(f"{number} {self.style.value} 1")

    @property
    def last(self) -> int:
        return self.at_most(Fraction(MAX_ODDS))

    def choices(self, bounds: tuple[Fraction, Fraction] | None) -> range:
        """The k whose pays lie within *bounds* (none when there are none)."""
        if bounds is None:
            return range(0)
        return range(self.at_least(bounds[0]), min(self.at_most(bounds[1]), self.last) + 1)


def interval(lines: Sequence[Line], edge: EdgeRange) -> tuple[Fraction, Fraction] | None:
    """The pays x with every line's exact edge in range (one variable), or None."""
    low, high = Fraction(0), Fraction(MAX_ODDS)
    for line in lines:
        c = line.coefficients[0]
        base = line.lose - line.base
        if c == 0:
            if base not in edge:
                return None
            continue
        low = max(low, (base - edge.high) / c)
        high = min(high, (base - edge.low) / c)
    return (low, high) if low <= high else None


@dataclass(frozen=True, slots=True)
class Candidate:
    """Pays on the step for one bet (or both main bets keyed by the first row), the
    largest stake in chips at which some line leaves the range (0: none; past every stake
    when the misses go on without end), and the search's preference."""

    ks: tuple[int, ...]
    pays: tuple[Fraction, ...]
    worst: int
    rank: tuple[Fraction | int, ...]
    need: int | None
    """The smallest table minimum from which every stake is served (``None``: none is)."""


class Search:
    """Every candidate pay of one bet (or pair) and what each needs of the table minimum."""

    def __init__(
        self,
        lines: Sequence[Line],
        edge: EdgeRange,
        grid: Grid,
        rounding: Rounding,
        stakes: StakeRange,
        fixed_period: int,
    ) -> None:
        self.lines, self.edge, self.grid = lines, edge, grid
        self.rounding, self.stakes = rounding, stakes
        self.pair = len(lines[0].coefficients) == 2
        self.candidates = [self._candidate(ks) for ks in self._choices(edge)]
        period = math.lcm(grid.step.denominator, fixed_period)
        if stakes.last is not None and self._short(period):
            # a run of fewer than L stakes may be served by a pay whose exact edge is out of
            # range: widen by the most rounding can move the edge from the run's first stake
            first = max(stakes.first, stakes.last - period + 2)
            gain = Fraction(1, 2) if rounding is Rounding.HALF_UP else Fraction(1)
            slack = max(line.wins for line in lines) * gain / first
            wide = EdgeRange(edge.low - slack, edge.high + slack)
            seen = {c.ks for c in self.candidates}
            self.candidates += [self._candidate(ks) for ks in self._choices(wide) if ks not in seen]

    def _short(self, period: int) -> bool:
        best = self.best_need
        assert self.stakes.last is not None
        return best is None or best > self.stakes.last - period + 1

    def _choices(self, edge: EdgeRange) -> Iterator[tuple[int, ...]]:
        if not self.pair:
            for k in self.grid.choices(interval(self.lines, edge)):
                yield (k,)
            return
        top = max(
            (
                (ln.lose - ln.base - edge.low) / ln.coefficients[0]
                for ln in self.lines
                if ln.coefficients[0]
            ),
            default=Fraction(0),
        )
        for k in range(self.grid.first(), min(self.grid.at_most(top), self.grid.last) + 1):
            x = self.grid.to_one(k)
            rest = [ln.fixing(x) for ln in self.lines]
            for j in self.grid.choices(interval(rest, edge)):
                yield (k, j)

    def _candidate(self, ks: tuple[int, ...]) -> Candidate:
        pays = tuple(self.grid.to_one(k) for k in ks)
        worst = 0
        for line in self.lines:
            miss = self.profile(line, pays).last_miss(self.edge.low, self.edge.high)
            worst = max(worst, _NEVER if miss == ENDLESS else (miss or 0))
            if worst == _NEVER:
                break
        served = worst < _NEVER and (self.stakes.last is None or worst < self.stakes.last)
        need = max(self.stakes.first, worst + 1) if served else None
        if self.pair:
            # the least lopsided pair (a club's table, not a corner of the region), then
            # the one whose edges stay nearest the middle of the range
            spread = max(abs(ln.edge(pays) - self.edge.middle) for ln in self.lines)
            rank: tuple[Fraction | int, ...] = (abs(pays[0] - pays[1]), spread, *ks)
        else:  # the pay whose overall edge is nearest the middle
            rank = (abs(self.lines[0].edge(pays) - self.edge.middle), *ks)
        return Candidate(ks, pays, worst, rank, need)

    def profile(self, line: Line, pays: Sequence[Fraction]) -> EdgeProfile:
        return EdgeProfile(line.bet_pays(pays), self.rounding, self.stakes)

    @property
    def best_need(self) -> int | None:
        """The smallest table minimum any candidate needs (``None``: none serves)."""
        return min((c.need for c in self.candidates if c.need is not None), default=None)

    def choose(self, minimum: int) -> Candidate | None:
        """The preferred candidate that serves every stake from *minimum* on."""
        fits = [c for c in self.candidates if c.need is not None and c.need <= minimum]
        return min(fits, key=lambda c: c.rank, default=None)

    def nearest(self) -> Candidate | None:
        """Of the pays whose exact edges lie in range, the one that misses the fewest
        stakes at the top of the table's range (for a refusal to name)."""
        inside = [
            c for c in self.candidates if all(ln.edge(c.pays) in self.edge for ln in self.lines)
        ]
        return min(inside, key=lambda c: (c.worst, c.rank), default=None)


_NEVER = 2**62
"""Beyond every stake: the worst miss of a candidate whose misses go on without end."""


def union(found: Iterable[Misses]) -> Misses:
    """The stakes in any of *found*: each listing below the earliest run to the maximum."""
    found = list(found)
    starts = [m.from_on for m in found if m.from_on is not None]
    from_on = min(starts, default=None)
    units = sorted({n for m in found for n in m.units if from_on is None or n < from_on})
    return Misses(tuple(units), any(m.more for m in found), from_on)


def fixed_period(lines: Iterable[Line]) -> int:
    """The least common multiple of the denominators of the pays kept from the base table."""
    return math.lcm(1, *(x.denominator for line in lines for x, _ in line.fixed))
