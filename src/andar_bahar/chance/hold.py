"""The night's hold against the maths: the exact law of what the house keeps.

**One round.** The house's result in a round is a function of the round's outcome
``(first_row, winner, cards_dealt)`` (:mod:`andar_bahar.chance.odds`) and of the bets
actually placed: every player's every spot at its whole stake (repeated bets on a spot add
up to one stake, paid as one win), under the table's paytable — its pays by row or by the
row dealt first, its pays by count, and the rounding of each win to the chip, exactly as
:func:`~andar_bahar.engine.settlement.settle` pays it. A losing bet gives the house its
stake, a winning one costs the house its rounded win. So for each outcome ``o`` of the
exact outcome distribution the house keeps ``h(o) = Σ stakes lost − Σ wins paid``, and

    E[h] = Σ_o P(o) h(o),   Var[h] = Σ_o P(o) h(o)² − E[h]²,

exactly (:class:`RoundLaw`). Bets in one round are settled by the same outcome, so they
are added outcome by outcome first: the round's variance is that of their sum, never a
sum of their variances.

**What the bets knew.** Under the ``after-centre`` window a player may bet after seeing
the centre card, and under the colour start rules its colour changes the odds (it picks
the row dealt first, or the colours left in the pile). A bet chosen knowing the colour is
judged against the outcome distribution *given* that colour — else a player who bets on
the row dealt first only when it is red would look lucky. :func:`known_centre` decides:
the round's distribution is conditioned on the centre card's colour exactly when a bet
was placed, changed or withdrawn after the centre card was turned; otherwise (every bet
placed before it, or no centre card at all) it is the unconditional one, the centre's
colour being part of the round's luck. Only the colour matters: the rank is matched by
three cards whatever it is.

**A night.** Rounds are dealt from separate shuffles, so their results are independent:
the night's mean and variance are the sums of the rounds' (:class:`HoldLaw`). Where the
result lies in its law is said by z (the distance from the mean in standard deviations),
a two-sided p-value and the band that holds 95 % of nights. These come from

- the **exact** law of the night's total, when it is small enough to list: the rounds'
  laws live on a common lattice (their values differ by multiples of one amount), and are
  convolved on it; the probabilities are exact fractions summed in double precision; or
- a **saddlepoint approximation** (Lugannani–Rice, with Daniels' continuity correction for
  the lattice) from the exact cumulant generating function ``K(s) = Σ log E[e^{s h}]`` of
  the rounds' exact laws. Unlike the normal approximation it follows the skew that long
  side-bet pays give a night (a 41+ bet at 120 to 1), and its relative error in the tails
  shrinks like n^(−3/2) with the number of rounds.

>>> from andar_bahar.engine.bets import Bet, Wager
>>> from andar_bahar.engine.paytables import find_paytable
>>> from andar_bahar.engine.rules import find_procedure
>>> from decimal import Decimal
>>> law = round_law(find_procedure("classic"), find_paytable("wizard"),
...                 [Wager("asha", Bet.parse("andar"), Decimal(100))])
>>> law.mean, law.variance                         # 100 × the house edge 179/8330
(Fraction(1790, 833), Fraction(6256707600, 693889))
>>> night = HoldLaw.of([law] * 100)
>>> night.mean, night.judge(Decimal(-1000)).verdict
(Fraction(179000, 833), 'ordinary')
"""

from __future__ import annotations

import decimal
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache, reduce

from andar_bahar.chance.odds import Outcome, outcome_distribution, sqrt_decimal
from andar_bahar.chance.significance import normal_sf, two_sided
from andar_bahar.engine.bets import Bet, Wager
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.paytables import Odds, Paytable
from andar_bahar.engine.rules import BetWindow, Procedure, StartRule, TargetMode

__all__ = [
    "EXACT_DIGITS",
    "LEVEL",
    "HoldLaw",
    "Judgement",
    "RoundLaw",
    "known_centre",
    "round_law",
]

MICROS = 1_000_000
"""Amounts are worked out in whole millionths of a chip (no amount has more places)."""
EXACT_DIGITS = 1_000_000
"""The exact law of a night is worked out when it holds at most this many digits (37 a
lattice point), and no step of working it out handles more than twice as many: half a
second at most. Beyond, the saddlepoint approximation is used."""
LEVEL = Fraction(95, 100)
"""The share of nights the band holds."""


def known_centre(
    procedure: Procedure, centre: Colour | None, bet_after_centre: bool
) -> Colour | None:
    """The centre card's colour to condition a round's odds on, or ``None``.

    Conditioned exactly when the window let bets be placed after the centre card and one
    was (placed, changed or withdrawn after it was turned): the bets then knew it.

    >>> from andar_bahar.engine.rules import find_procedure
    >>> known_centre(find_procedure("classic"), Colour.RED, bet_after_centre=True)
    <Colour.RED: 'red'>
    >>> known_centre(find_procedure("classic"), Colour.RED, bet_after_centre=False) is None
    True
    """
    if procedure.window is BetWindow.AFTER_CENTRE and procedure.has_centre and bet_after_centre:
        return centre
    return None


@dataclass(frozen=True, slots=True, eq=False)
class _Outcomes:
    """The outcomes of a situation with whole-number weights over one denominator (one
    object per situation: compared and hashed by identity)."""

    outcomes: tuple[Outcome, ...]
    weights: tuple[int, ...]
    denominator: int


@lru_cache(maxsize=64)
def _outcomes(start: StartRule, target: TargetMode, centre: Colour | None) -> _Outcomes:
    rules = Procedure("hold", start=start, target=target)
    items = list(outcome_distribution(rules, centre=centre))
    denominator = reduce(math.lcm, (p.denominator for _, p in items), 1)
    weights = tuple(p.numerator * (denominator // p.denominator) for _, p in items)
    return _Outcomes(tuple(o for o, _ in items), weights, denominator)


_PAYS: dict[int, tuple[Paytable, dict[tuple[Bet, Decimal, _Outcomes], tuple[int, ...]]]] = {}
"""What each bet keeps at each stake, per paytable (kept by the paytable's identity, with the
paytable itself: hashing a paytable's every odds for each bet would cost more than the sum)."""


def _kept(paytable: Paytable, bet: Bet, stake: Decimal, situation: _Outcomes) -> tuple[int, ...]:
    """What the house keeps from one bet in each outcome, in millionths of a chip: the
    stake when it loses, minus the win (rounded as the table pays it) when it wins."""
    entry = _PAYS.get(id(paytable))
    if entry is None or entry[0] is not paytable:
        if len(_PAYS) >= 64:
            _PAYS.clear()
        entry = _PAYS[id(paytable)] = (paytable, {})
    known = entry[1].get((bet, stake, situation))
    if known is not None:
        return known
    lost = int(stake * MICROS)
    paid: dict[Odds, int] = {}  # a bet has few odds: each win worked out once
    kept = []
    for first, winner, k in situation.outcomes:
        if bet.wins(winner=winner, cards_dealt=k):
            odds = paytable.odds_for(bet, first_row=first, cards_dealt=k)
            if odds not in paid:
                paid[odds] = -int(paytable.win(stake, odds) * MICROS)
            kept.append(paid[odds])
        else:
            kept.append(lost)
    entry[1][(bet, stake, situation)] = result = tuple(kept)
    return result


@dataclass(frozen=True, slots=True)
class RoundLaw:
    """The exact law of the house's result in one round: each distinct result (in
    millionths of a chip, ascending) with a whole-number weight over ``denominator``."""

    values: tuple[int, ...]
    weights: tuple[int, ...]
    denominator: int

    @property
    def mean(self) -> Fraction:
        """E[h] in chips."""
        total = sum(w * v for v, w in zip(self.values, self.weights, strict=True))
        return Fraction(total, self.denominator * MICROS)

    def spread(self) -> tuple[int, int]:
        """(Σ w·v, Σ w·(D·v − Σ w·v)²): whole numbers from which E[h] = first / (D·MICROS)
        and Var[h] = second / (D³·MICROS²) follow exactly."""
        d = self.denominator
        first = sum(w * v for v, w in zip(self.values, self.weights, strict=True))
        second = sum(
            w * (d * v - first) ** 2 for v, w in zip(self.values, self.weights, strict=True)
        )
        return first, second

    @property
    def variance(self) -> Fraction:
        """Var[h] in chips²: E[(h − E[h])²], exactly."""
        return Fraction(self.spread()[1], self.denominator**3 * MICROS**2)


def round_law(
    procedure: Procedure,
    paytable: Paytable,
    wagers: Iterable[Wager],
    *,
    centre: Colour | None = None,
) -> RoundLaw:
    """The exact law of what the house keeps from *wagers* in one round.

    *procedure* gives the start rule and target mode (hence the outcome distribution);
    *centre* is the colour the bets knew (see :func:`known_centre`), ``None`` if none.
    A round without bets keeps 0 for certain.
    """
    situation = _outcomes(procedure.start, procedure.target, centre)
    total = [0] * len(situation.outcomes)
    for wager in wagers:
        for i, value in enumerate(_kept(paytable, wager.bet, wager.stake, situation)):
            total[i] += value
    merged: dict[int, int] = {}
    for value, weight in zip(total, situation.weights, strict=True):
        merged[value] = merged.get(value, 0) + weight
    values = tuple(sorted(merged))
    return RoundLaw(values, tuple(merged[v] for v in values), situation.denominator)


@dataclass(frozen=True, slots=True)
class Judgement:
    """Where an observed result lies in its law, in chips.

    ``low`` and ``high`` bound the band that holds at least 95 % of results; ``p_value``
    is two-sided; ``verdict`` is ``ordinary`` (inside the band), ``high`` or ``low``
    (outside, above or below it); ``method`` is ``exact`` or ``saddlepoint``.
    """

    observed: Decimal
    mean: Fraction
    variance: Fraction
    z: float | None
    """(observed − mean) / SD; ``None`` when the result could not vary."""
    p_value: float
    low: Decimal
    high: Decimal
    method: str

    @property
    def sd(self) -> Decimal:
        return sqrt_decimal(self.variance, 6)

    @property
    def verdict(self) -> str:
        if self.observed < self.low:
            return "low"
        if self.observed > self.high:
            return "high"
        return "ordinary"


@dataclass(frozen=True, slots=True)
class HoldLaw:
    """The law of the house's result over independent rounds: the sum of their laws.

    ``laws`` are the distinct round laws, each with the number of rounds that have it.
    The mean and the variance are exact sums.
    """

    laws: tuple[tuple[RoundLaw, int], ...]
    mean: Fraction
    variance: Fraction

    @classmethod
    def of(cls, laws: Iterable[RoundLaw]) -> HoldLaw:
        counted = tuple(Counter(laws).items())
        sums: dict[int, list[int]] = {}  # per denominator: whole numbers, added exactly
        for law, count in counted:
            first, second = law.spread()
            entry = sums.setdefault(law.denominator, [0, 0])
            entry[0] += count * first
            entry[1] += count * second
        mean = sum((Fraction(a, d * MICROS) for d, (a, _) in sums.items()), Fraction(0))
        variance = sum((Fraction(b, d**3 * MICROS**2) for d, (_, b) in sums.items()), Fraction(0))
        return cls(counted, mean, variance)

    @property
    def rounds(self) -> int:
        return sum(count for _, count in self.laws)

    @property
    def sd(self) -> Decimal:
        return sqrt_decimal(self.variance, 6)

    def judge(self, observed: Decimal, level: Fraction = LEVEL) -> Judgement:
        """z, the two-sided p-value and the band of *observed* (chips) in this law."""
        tails = _Tails.of(self)
        t = int(observed * MICROS)
        below, above = tails.at_most(t), tails.at_least(t)
        low, high = tails.band((1 - level) / 2)
        z = None
        if self.variance:
            z = float((Fraction(observed) - self.mean) / Fraction(str(self.sd)))
        return Judgement(
            observed,
            self.mean,
            self.variance,
            z,
            two_sided(below, above),
            _chips(low),
            _chips(high),
            tails.method,
        )


def _chips(micros: int) -> Decimal:
    return (Decimal(micros) / MICROS).normalize() + 0  # + 0: no exponent for whole numbers


# -- the tails: exact on the lattice, else by the saddlepoint ------------------------------


@dataclass(frozen=True, slots=True)
class _Tails:
    """P(T ≤ t), P(T ≥ t) and the band of the total T, in millionths of a chip.

    Every value of T lies on ``offset + span · j`` for j = 0 … ``top``: the span is the
    gcd of the differences between each round's values (1 when nothing can vary).
    """

    offset: int
    span: int
    top: int
    exact: _Listed | None
    saddle: _Saddlepoint | None

    @property
    def method(self) -> str:
        return "exact" if self.exact is not None else "saddlepoint"

    @classmethod
    def of(cls, law: HoldLaw) -> _Tails:
        offset = sum(r.values[0] * n for r, n in law.laws)
        span = 0
        for r, _ in law.laws:
            for v in r.values:
                span = math.gcd(span, v - r.values[0])
        if span == 0:
            return cls(offset, 1, 0, _Listed(0, [1]), None)
        top = sum((r.values[-1] - r.values[0]) // span * n for r, n in law.laws)
        # Chances below 10⁻¹⁸ are rounded to 0 and dropped: what is left lies within some
        # 30 SD (or the whole lattice, if it is shorter).
        reach = min(top + 1, 30 * math.sqrt(float(law.variance)) * MICROS / span + 1)
        exact = _convolve(law, span) if reach * _SLOT <= EXACT_DIGITS else None
        if exact is not None:
            return cls(offset, span, top, exact, None)
        return cls(offset, span, top, None, _Saddlepoint.of(law, span, top))

    def at_least(self, t: int) -> float:
        """P(T ≥ t)."""
        j = -((self.offset - t) // self.span)  # the first lattice point at t or above
        if j <= 0:
            return 1.0
        if j > self.top:
            return 0.0
        if self.exact is not None:
            return self.exact.above(j)
        assert self.saddle is not None
        return self.saddle.at_least(j)

    def at_most(self, t: int) -> float:
        """P(T ≤ t) = 1 − P(T ≥ the next lattice point)."""
        j = (t - self.offset) // self.span  # the last lattice point at t or below
        if j < 0:
            return 0.0
        if j >= self.top:
            return 1.0
        if self.exact is not None:
            return self.exact.below(j)
        return 1.0 - self.at_least(self.offset + self.span * (j + 1))

    def band(self, tail: Fraction) -> tuple[int, int]:
        """(L, U): the smallest L with P(T ≤ L) ≥ *tail*, the smallest U with P(T ≤ U) ≥
        1 − *tail*; so P(L ≤ T ≤ U) ≥ 1 − 2 · *tail*."""
        if self.exact is not None:
            low, high = self.exact.quantile(tail), self.exact.quantile(1 - tail)
        else:
            assert self.saddle is not None
            # P(T ≤ L) ≥ tail ⇔ P(T ≥ L + 1 step) ≤ 1 − tail: L + 1 is the first lattice
            # point whose upper tail is at most 1 − tail; U + 1 the first at most tail.
            low = self.saddle.first_at_most(float(1 - tail)) - 1
            high = self.saddle.first_at_most(float(tail)) - 1
        return self.offset + self.span * max(low, 0), self.offset + self.span * min(high, self.top)


@dataclass(frozen=True, slots=True)
class _Listed:
    """The law of the total, worked out: the chances of the lattice points ``first``,
    ``first + 1`` … in units of 10⁻¹⁸ (every other point's is below one unit)."""

    first: int
    chances: list[int]

    def above(self, j: int) -> float:
        """P(T ≥ the lattice point j)."""
        return sum(self.chances[max(j - self.first, 0) :]) / sum(self.chances)

    def below(self, j: int) -> float:
        """P(T ≤ the lattice point j)."""
        return sum(self.chances[: max(j - self.first + 1, 0)]) / sum(self.chances)

    def quantile(self, level: Fraction) -> int:
        """The first lattice point j with P(T ≤ j) ≥ *level*."""
        need = math.ceil(level * sum(self.chances))
        cumulative = 0
        for i, chance in enumerate(self.chances):
            cumulative += chance
            if cumulative >= need:
                return self.first + i
        return self.first + len(self.chances) - 1


_WHOLE = decimal.Context(
    prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN, traps=[decimal.Inexact]
)
"""Whole numbers of any size, multiplied exactly (libmpdec multiplies long numbers by a
number-theoretic transform: a million digits by a million in a few hundredths of a second)."""
PLACES = 18
"""The exact law is worked out in whole units of 10⁻¹⁸: every probability is rounded down
to them, and so is every product of two laws — every tail is exact to 10⁻¹² at least."""
_SLOT = 2 * PLACES + 1
"""Digits per lattice point: a product of two laws holds each point's chance × 10³⁶."""


@dataclass(frozen=True, slots=True)
class _Packed:
    """A law as the whole number Σ c_j 10^(SLOT · j), c_j the chance of the lattice point
    ``first + j`` in units of 10⁻¹⁸ (the points below ``first`` have none)."""

    number: decimal.Decimal
    first: int
    points: int
    """How many lattice points it holds (SLOT digits each)."""

    @classmethod
    def of(cls, chances: list[int]) -> _Packed:
        start = next((i for i, c in enumerate(chances) if c), len(chances))
        digits = "".join(str(c).zfill(_SLOT) for c in reversed(chances[start:]))
        return cls(decimal.Decimal(digits or "0"), start, len(chances) - start)

    def chances(self) -> list[int]:
        return [int(slot) for slot in reversed(_slots(self.number, _SLOT))]

    def times(self, other: _Packed) -> _Packed:
        """The law of the sum of two independent totals (each point's chance × 10³⁶ in the
        product), rounded down to units of 10⁻¹⁸ again; points rounded to nothing at the
        low end are dropped."""
        kept = _slots(_WHOLE.multiply(self.number, other.number), PLACES + 1)
        zero = "0" * (PLACES + 1)
        low = len(kept)
        while low and kept[low - 1] == zero:
            low -= 1
        pad = "0" * PLACES
        digits = "".join(pad + slot for slot in kept[:low])
        first = self.first + other.first + len(kept) - low
        return _Packed(decimal.Decimal(digits or "0"), first, low)


def _slots(number: decimal.Decimal, keep: int) -> list[str]:
    """The slots of a packed *number* from the highest, each its first *keep* digits."""
    text = format(number, "f")
    text = text.zfill(-(-len(text) // _SLOT) * _SLOT)
    return [text[i : i + keep] for i in range(0, len(text), _SLOT)]


def _convolve(law: HoldLaw, span: int) -> _Listed | None:
    """The law of the total in units of 10⁻¹⁸ (``None``: longer than :data:`EXACT_DIGITS`).

    Each round's law is a polynomial in x (its chance of the lattice point j the
    coefficient of x^j); the law of the total is their product. The polynomials are
    multiplied as whole numbers (Kronecker's substitution x = 10^SLOT), pairwise up a tree.
    """
    packed = []
    for r, count in law.laws:
        if len(r.values) == 1:
            continue  # a certain result: a factor 1
        chances = [0] * ((r.values[-1] - r.values[0]) // span + 1)
        for v, w in zip(r.values, r.weights, strict=True):
            chances[(v - r.values[0]) // span] = w * 10**PLACES // r.denominator
        packed.extend([_Packed.of(chances)] * count)
    if not packed:
        return _Listed(0, [1])
    while len(packed) > 1:  # each level costs about its digits: at most twice the limit
        if sum(p.points for p in packed) * _SLOT > 2 * EXACT_DIGITS:
            return None
        pairs = [a.times(b) for a, b in zip(packed[::2], packed[1::2], strict=False)]
        packed = pairs + ([packed[-1]] if len(packed) % 2 else [])
    return _Listed(packed[0].first, packed[0].chances())


@dataclass(frozen=True, slots=True)
class _Saddlepoint:
    """Lugannani–Rice tails of T from the exact cumulant generating function of its rounds.

    Worked in standard units — each round's values less its mean, over the night's SD — so
    that K(0) = K'(0) = 0 and K''(0) = 1. The tail at the lattice point of standard value
    z uses Daniels' second continuity correction: the saddlepoint ŝ of z − δ/2 (δ: the
    lattice span in standard units), w = sign(ŝ) √(2(ŝ(z − δ/2) − K(ŝ))), and
    u = (2/δ) sinh(ŝδ/2) √K''(ŝ); then P(T ≥ t) ≈ 1 − Φ(w) + φ(w)(1/u − 1/w).
    """

    laws: tuple[tuple[tuple[float, ...], tuple[float, ...], int], ...]
    """(values y ascending, probabilities, how many rounds) per distinct round law."""
    z0: float
    """The standard value of the lattice point j = 0 (the least total)."""
    delta: float
    top: int

    @classmethod
    def of(cls, law: HoldLaw, span: int, top: int) -> _Saddlepoint:
        sd = math.sqrt(float(law.variance)) * MICROS
        laws = []
        z0 = 0.0
        for r, count in law.laws:
            mean = float(r.mean) * MICROS
            ys = tuple((v - mean) / sd for v in r.values)
            laws.append((ys, tuple(w / r.denominator for w in r.weights), count))
            z0 += count * ys[0]
        return cls(tuple(laws), z0, span / sd, top)

    def _k(self, s: float) -> tuple[float, float, float]:
        """K(s), K'(s) and K''(s) of the standardised total."""
        k0 = k1 = k2 = 0.0
        exp, log = math.exp, math.log
        for ys, ps, n in self.laws:
            shift = s * (ys[-1] if s >= 0 else ys[0])  # the largest s·y: no overflow
            total = m1 = m2 = 0.0
            for i in range(len(ys)):
                y = ys[i]
                t = ps[i] * exp(s * y - shift)
                total += t
                m1 += t * y
                m2 += t * y * y
            m1 /= total
            k0 += n * (log(total) + shift)
            k1 += n * m1
            k2 += n * (m2 / total - m1 * m1)
        return k0, k1, k2

    def _solve(self, z: float) -> float:
        """The ŝ with K'(ŝ) = z: Newton's steps inside a bracket that only narrows."""
        low, high = -1.0, 1.0
        while self._k(low)[1] > z:
            low *= 2
        while self._k(high)[1] < z:
            high *= 2
        s = min(max(z, low), high)
        for _ in range(200):
            _, k1, k2 = self._k(s)
            if k1 > z:
                high = s
            else:
                low = s
            nxt = s - (k1 - z) / k2 if k2 > 0 else (low + high) / 2
            if not low < nxt < high:
                nxt = (low + high) / 2
            if abs(nxt - s) <= 1e-12 * max(1.0, abs(s)):
                return nxt
            s = nxt
        return s

    def _tail(self, s: float) -> tuple[float, float]:
        """(z, P(T ≥ the lattice point of z + δ/2)) at the saddlepoint *s*."""
        k0, z, k2 = self._k(s)
        w2 = 2 * (s * z - k0)
        if abs(s) < 1e-5 or w2 <= 1e-10:  # at the mean the formula is 0/0: step aside
            (z1, p1), (z2, p2) = self._tail(-2e-5), self._tail(2e-5)
            return z, p1 + (p2 - p1) * (z - z1) / (z2 - z1)
        w = math.copysign(math.sqrt(w2), s)
        u = (2 / self.delta) * math.sinh(s * self.delta / 2) * math.sqrt(k2)
        density = math.exp(-w * w / 2) / math.sqrt(2 * math.pi)
        return z, min(1.0, max(0.0, normal_sf(w) + density * (1 / u - 1 / w)))

    def _z(self, j: int) -> float:
        """The corrected standard value z(j) − δ/2 of the lattice point j."""
        return self.z0 + j * self.delta - self.delta / 2

    def at_least(self, j: int) -> float:
        """P(T ≥ offset + span · j), for 0 < j ≤ top."""
        if j == self.top:  # the very top: every round at its greatest value
            return math.prod(ps[-1] ** n for _, ps, n in self.laws)
        return self._tail(self._solve(self._z(j)))[1]

    def first_at_most(self, target: float) -> int:
        """The smallest j in 1 … top + 1 with P(T ≥ offset + span · j) ≤ *target*.

        The tail falls as the saddlepoint s grows, so the s where it equals *target* is
        found by regula falsi (Illinois), and its z rounded up to the lattice.
        """
        low, high = -1.0, 1.0
        while self._tail(low)[1] < target:
            low *= 2
            if low < -1e6:
                return 1
        while self._tail(high)[1] > target:
            high *= 2
            if high > 1e6:
                return self.top + 1
        f_low, f_high = self._tail(low)[1] - target, self._tail(high)[1] - target
        side = 0
        s = low
        for _ in range(100):
            s = (low * f_high - high * f_low) / (f_high - f_low)
            z, p = self._tail(s)
            f = p - target
            if abs(f) <= 1e-7 or high - low <= max(self.delta / 8, 1e-9):
                break  # the tail to 10⁻⁷, or z within an eighth of a lattice step
            if f > 0:
                low, f_low = s, f
                if side == 1:
                    f_high /= 2
                side = 1
            else:
                high, f_high = s, f
                if side == -1:
                    f_low /= 2
                side = -1
        z = self._tail(s)[0]
        j = math.ceil((z - self.z0) / self.delta + 0.5 - 1e-9)
        return min(max(j, 1), self.top + 1)
