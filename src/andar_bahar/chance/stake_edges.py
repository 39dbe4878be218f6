"""A bet's house edge at every stake a table allows, wins rounded to the chip — exactly,
without working out every stake.

At a stake of *n* chips a win at a pay of x = a/b to 1 is paid ``R(n·x)`` chips, *R* the
table's rounding rule. Write ``R(n·x) = n·x + δ``: the rounding's gift or toll *δ* depends
only on the fraction of a chip ``n·a mod b``, so only on *n* modulo *b*. Summed over the
bet's pays (probability pᵢ at pay xᵢ = aᵢ/bᵢ), the edge at *n* chips is ::

    edge(n) = E − D(n mod L) / n        L = lcm(bᵢ),  D(r) = Σ pᵢ·δᵢ(r)

with E the exact edge. So the stakes fall into L classes (n ≡ r mod L) and within a class
the edge moves monotonically towards E as the stake grows: its extremes over the stakes
from *first* to *last* are at the class's first and last stakes, and the stakes at which it
leaves a range [low, high] are the class's first few, its last few, or all of them — two
integer divisions per class. A profile therefore costs one step per class (or per stake,
when the table allows fewer stakes than L), however many stakes the table allows. Every
quantity is an integer scaled by a common denominator, so nothing is rounded.

Where even that is too much work (pays written with so many decimals that L and the
stakes both exceed :data:`WORK_LIMIT`), the first :data:`WORK_LIMIT` stakes are worked out
one by one and the rest bounded: rounding moves a win by at most one chip (half a chip
half-up), so beyond *n* chips the edge lies within P(win)·g/n of E.

>>> from fractions import Fraction
>>> from andar_bahar.chance.odds import BetPays
>>> from andar_bahar.engine.pays import Rounding
>>> andar = BetPays(((Fraction(9, 10), Fraction(429, 833)),), Fraction(404, 833))
>>> profile = EdgeProfile(andar, Rounding.DOWN, StakeRange(1, 500))
>>> profile.edge_at(5), profile.period       # 5 × 0.9 = 4.5, paid 4
(Fraction(304, 4165), 10)
>>> low, high = profile.extremes()
>>> (low.edge, low.stake), (high.edge, high.stake)
((Fraction(179, 8330), 10), (Fraction(404, 833), 1))
>>> profile.last_miss(Fraction(1, 100), Fraction(5, 100))   # 12 chips paid 10: 5.58 %
12
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from andar_bahar.chance.odds import BetPays
from andar_bahar.engine.money import Amount
from andar_bahar.engine.pays import Rounding
from andar_bahar.engine.paytables import Paytable
from andar_bahar.i18n.messages import N_, Message, Translator

__all__ = ["ENDLESS", "WORK_LIMIT", "EdgeAt", "EdgeProfile", "Misses", "StakeRange", "Stakes"]

WORK_LIMIT = 100_000
"""The most classes (or stakes) a profile works through one by one."""

ENDLESS = -1
"""What :meth:`EdgeProfile.last_miss` returns when the misses go on without end."""


@dataclass(frozen=True, slots=True)
class StakeRange:
    """The stakes a table allows, in chips: *first* to *last* (``None``: no maximum)."""

    first: int
    last: int | None = None

    @classmethod
    def of(cls, paytable: Paytable) -> StakeRange:
        """Every whole number of chips from the table minimum to its maximum.

        >>> from andar_bahar.engine.paytables import find_paytable
        >>> import dataclasses
        >>> StakeRange.of(dataclasses.replace(find_paytable("wizard"), chip=Decimal(5),
        ...                                   min_stake=Decimal(3), max_stake=Decimal(1000)))
        StakeRange(first=1, last=200)
        """
        first = 1
        if paytable.min_stake is not None:
            first = max(1, math.ceil(Fraction(paytable.min_stake) / Fraction(paytable.chip)))
        last = None
        if paytable.max_stake is not None:
            last = math.floor(Fraction(paytable.max_stake) / Fraction(paytable.chip))
        return cls(first, last)

    def from_stake(self, first: int) -> StakeRange:
        """The same range with its first stake raised to *first* (never lowered)."""
        return StakeRange(max(self.first, first), self.last)

    @property
    def empty(self) -> bool:
        return self.last is not None and self.last < self.first

    @property
    def count(self) -> int | None:
        """How many stakes (``None``: without end)."""
        return None if self.last is None else max(0, self.last - self.first + 1)


@dataclass(frozen=True, slots=True)
class EdgeAt:
    """A house edge and the smallest stake, in chips, at which the bet has it."""

    edge: Fraction
    stake: int


@dataclass(frozen=True, slots=True)
class _Class:
    """The stakes n₀, n₀ + step, … up to *last* (``None``: without end)."""

    start: int
    step: int
    last: int | None

    def last_stake(self) -> int | None:
        if self.last is None:
            return None
        return self.start + (self.last - self.start) // self.step * self.step

    def stakes(self, low: int, high: int | None) -> Iterator[int]:
        """The class's stakes from *low* to *high* (``None``: to its end)."""
        top = self.last if high is None else high if self.last is None else min(high, self.last)
        first = self.start + max(0, -(-(low - self.start) // self.step)) * self.step
        if top is None:
            return itertools.count(first, self.step)
        return iter(range(first, top + 1, self.step))


class EdgeProfile:
    """A bet's house edge at every stake of *stakes*, each win rounded by *rounding*."""

    def __init__(self, pays: BetPays, rounding: Rounding, stakes: StakeRange) -> None:
        self.stakes = stakes
        self.rounding = rounding
        self._pays = pays
        scale = math.lcm(pays.lose.denominator, *(p.denominator for _, p in pays.wins))
        self.period = math.lcm(*(x.denominator for x, _ in pays.wins)) if pays.wins else 1
        self._scale = self.period * scale
        # (weight, a, b) for a pay of a/b won with probability p: weight = p·scale·L/b
        self._terms = [
            (p.numerator * (scale // p.denominator) * (self.period // x.denominator),
             x.numerator, x.denominator)
            for x, p in pays.wins
            if p
        ]  # fmt: skip
        lose = pays.lose.numerator * (scale // pays.lose.denominator) * self.period
        self._exact = lose - sum(w * a for w, a, _ in self._terms)
        self._starts, self._step, self._tail = self._split()
        self._single = self._step == 0  # each class one stake: the stakes one by one

    @property
    def exact(self) -> Fraction:
        """The edge at exact pays (the limit of the edge as the stake grows)."""
        return Fraction(self._exact, self._scale)

    def _split(self) -> tuple[range, int, int | None]:
        """The first stake of each class to work through, the classes' step (0: each class
        is one stake), and the first stake left to the bound (``None``: none)."""
        first, count = self.stakes.first, self.stakes.count
        if count is not None and count <= min(self.period, WORK_LIMIT):
            return range(first, first + count), 0, None
        if self.period <= WORK_LIMIT:
            return range(first, first + self.period), self.period, None
        tail = first + WORK_LIMIT
        return range(first, tail), 0, tail

    @property
    def _classes(self) -> list[_Class]:
        if self._single:
            return [_Class(n, 1, n) for n in self._starts]
        return [_Class(n, self._step, self.stakes.last) for n in self._starts]

    def _shift(self, units: int) -> int:
        """D(units mod L), scaled: what rounding adds to the wins at a stake of *units*."""
        total = 0
        down, half = self.rounding is Rounding.DOWN, self.rounding is Rounding.HALF_UP
        for weight, a, b in self._terms:
            f = units * a % b
            if down or (half and 2 * f < b):
                total -= weight * f
            elif f:
                total += weight * (b - f)
        return total

    def edge_at(self, units: int) -> Fraction:
        """The house edge at a stake of *units* chips."""
        return Fraction(self._exact * units - self._shift(units), self._scale * units)

    def extremes(self) -> tuple[EdgeAt, EdgeAt]:
        """The lowest and the highest edge over the stakes (each at its smallest stake).

        Within a class the edge is monotonic, so its first and last stakes hold the
        extremes; without a maximum the class of multiples of L has the exact edge and
        the others tend to it. Beyond :data:`WORK_LIMIT` stakes the exact edge stands in.
        """
        found: list[EdgeAt] = []
        for group in self._classes:
            found.append(EdgeAt(self.edge_at(group.start), group.start))
            end = group.last_stake()
            if end is not None and end != group.start:
                found.append(EdgeAt(self.edge_at(end), end))
        if self._tail is not None or self.stakes.last is None:
            found.append(EdgeAt(self.exact, self._exact_stake()))
        low = min(found, key=lambda e: (e.edge, e.stake))
        high = min(found, key=lambda e: (-e.edge, e.stake))
        return low, high

    def _exact_stake(self) -> int:
        """The smallest allowed stake that is a multiple of L (the edge there is exact)."""
        return -(-self.stakes.first // self.period) * self.period

    def _sides(self, low: Fraction | None, high: Fraction | None) -> tuple[int, int, int, int]:
        """The range as integers: edge(n) ≥ low ⇔ a·n ≥ D·ld, edge(n) ≤ high ⇔ c·n ≤ D·hd
        (D scaled as :meth:`_shift`); an open side has ld (or hd) 0."""
        a = ld = c = hd = 0
        if low is not None:
            ld = low.denominator
            a = self._exact * ld - low.numerator * self._scale
        if high is not None:
            hd = high.denominator
            c = self._exact * hd - high.numerator * self._scale
        return a, ld, c, hd

    @staticmethod
    def _good(shift: int, sides: tuple[int, int, int, int]) -> tuple[int, int]:
        """The stakes n of a class with ``low ≤ edge(n) ≤ high``: an interval of n
        (0 and −1 when none; the upper end :data:`_TOP` when unbounded)."""
        a, ld, c, hd = sides
        lo, hi = 0, _TOP
        if ld:  # (E − low)·n ≥ D, all scaled
            b = shift * ld
            if a > 0:
                lo = -(-b // a)
            elif a < 0:
                hi = b // a
            elif b > 0:
                return 0, -1
        if hd:  # (E − high)·n ≤ D
            d = shift * hd
            if c > 0:
                hi = min(hi, d // c)
            elif c < 0:
                lo = max(lo, -(-d // c))
            elif d < 0:
                return 0, -1
        return lo, hi

    def last_miss(self, low: Fraction | None, high: Fraction | None) -> int | None:
        """The largest stake at which the edge leaves [*low*, *high*] (``None`` bounds are
        open): ``None`` when none does, :data:`ENDLESS` when the misses go on without end
        (or, past :data:`WORK_LIMIT` stakes, cannot be ruled out by the bound)."""
        sides, single, last = self._sides(low, high), self._single, self.stakes.last
        step = self._step or 1
        worst: int | None = None
        for start in self._starts:
            lo, hi = self._good(self._shift(start), sides)
            end = start if single else None if last is None else last - (last - start) % step
            if lo > hi or (end is None and hi < _TOP) or (end is not None and end > hi):
                if end is None:
                    return ENDLESS
                above = end
            elif start < lo:
                above = start + (lo - 1 - start) // step * step
                above = above if end is None else min(above, end)
            else:
                continue
            worst = above if worst is None or above > worst else worst
        if self._tail is not None and not self._tail_within(low, high):
            return ENDLESS
        return worst

    def _tail_within(self, low: Fraction | None, high: Fraction | None) -> bool:
        """Whether every stake from the tail on is within range by the bound alone."""
        assert self._tail is not None
        if self.stakes.last is not None and self.stakes.last < self._tail:
            return True
        gain = Fraction(1, 2) if self.rounding is Rounding.HALF_UP else Fraction(1)
        slack = self._pays.probability * gain / self._tail
        return (low is None or self.exact - slack >= low) and (
            high is None or self.exact + slack <= high
        )

    def misses(self, low: Fraction | None, high: Fraction | None, *, limit: int = 10_000) -> Misses:
        """The stakes at which the edge leaves [*low*, *high*] (``None`` bounds are open)."""
        runs: list[Iterator[int]] = []
        last_good: int | None = self.stakes.first - 1
        sides = self._sides(low, high)
        for group in self._classes:
            lo, hi = self._good(self._shift(group.start), sides)
            if lo > hi:
                runs.append(group.stakes(group.start, None))
                continue
            if group.start < lo:
                runs.append(group.stakes(group.start, lo - 1))
            if hi < _TOP:
                runs.append(group.stakes(hi + 1, None))
                good = list(itertools.islice(group.stakes(lo, hi), 1))
                if good and last_good is not None:
                    end = group.last_stake()
                    top = hi if end is None else min(hi, end)
                    last_good = max(
                        last_good, group.start + (top - group.start) // group.step * group.step
                    )
            else:
                last_good = None  # this class is within range at every large stake
        tail_unknown = self._tail is not None and not self._tail_within(low, high)
        from_on = None
        if last_good is not None and not tail_unknown and self._tail is None:
            from_on = last_good + 1
            if self.stakes.last is not None and from_on > self.stakes.last:
                from_on = None
        merged = heapq.merge(*runs)
        below = itertools.takewhile(lambda n: from_on is None or n < from_on, merged)
        found = list(itertools.islice(below, limit + 1))
        return Misses(tuple(found[:limit]), len(found) > limit or tail_unknown, from_on)


@dataclass(frozen=True, slots=True)
class Misses:
    """The stakes, in chips, at which a bet's edge leaves a range."""

    units: tuple[int, ...]
    """The stakes below :attr:`from_on`, the smallest first (at most the listing's limit)."""
    more: bool
    """True when more follow those listed below :attr:`from_on` (or past the bound's reach)."""
    from_on: int | None
    """Every stake from this one to the table maximum misses (``None``: no such run)."""


@dataclass(frozen=True, slots=True)
class Stakes:
    """Stakes in chips for people: runs such as ``1–9, 18–19``, ``…`` after the sixth run
    or when more follow, and a last run to the table maximum (``103 or more``)."""

    units: tuple[int, ...]
    chip: Decimal
    more: bool = False
    """True when more stakes follow those listed (below :attr:`from_on`)."""
    from_on: int | None = None
    """Every stake from this one to :attr:`last` is in the set too."""
    last: int | None = None
    """The table maximum in chips (``None``: none)."""

    @classmethod
    def of(cls, misses: Misses, chip: Decimal, stakes: StakeRange) -> Stakes:
        return cls(misses.units, chip, misses.more, misses.from_on, stakes.last)

    def __bool__(self) -> bool:
        return bool(self.units) or self.from_on is not None

    @property
    def plural(self) -> int:
        """1 for a single stake, else 2: the count a message's plural form is chosen by."""
        single = len(self.units) == 1 and not self.more and self.from_on is None
        only = not self.units and self.from_on is not None and self.from_on == self.last
        return 1 if single or only else 2

    def runs(self) -> Iterator[tuple[int, int]]:
        """The listed stakes as runs of consecutive stakes (first, last)."""
        start = previous = None
        for unit in self.units:
            if previous is not None and unit == previous + 1:
                previous = unit
                continue
            if start is not None and previous is not None:
                yield start, previous
            start = previous = unit
        if start is not None and previous is not None:
            yield start, previous

    def localized(self, translator: Translator | None) -> str:
        def amount(units: int) -> str:
            return Amount(self.chip * units).localized(translator)

        runs = list(self.runs())
        parts = [amount(a) if a == b else f"{amount(a)}–{amount(b)}" for a, b in runs[:6]]
        if len(runs) > 6 or self.more:
            parts.append("…")
        if self.from_on is not None and self.last is None:
            more = Message(N_("{stake} or more"), stake=Amount(self.chip * self.from_on))
            parts.append(more.localized(translator))
        elif self.from_on is not None and self.last is not None:
            last = self.from_on == self.last
            whole = (self.from_on, self.last)
            parts.append(amount(self.from_on) if last else "–".join(map(amount, whole)))
        return ", ".join(parts)

    def __str__(self) -> str:
        return self.localized(None)


_TOP = 2**62
"""No stake reaches it: the open upper end of a class's good stakes."""
