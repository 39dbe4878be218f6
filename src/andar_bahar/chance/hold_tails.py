"""The law of a round's result and the tails of a sum of rounds: exact, or by the saddlepoint.

A :class:`RoundLaw` is what :func:`andar_bahar.chance.hold.round_law` works out: each
result the house can have in a round, in millionths of a chip, with its chance as a whole
number over a denominator. :class:`Tails` gives the chance of a total of independent rounds
at most (or at least) some amount, and the band that holds 95 % of totals:

- **exactly**, while the law of the total is small enough to write out: each round's law
  is a polynomial (its chance of the lattice point j the coefficient of x^j), the total's
  law their product, multiplied as whole numbers (Kronecker's substitution) with every
  chance kept in units of 10⁻¹⁸ — libmpdec multiplies long numbers by a number-theoretic
  transform, so a night of hundreds of rounds takes a fraction of a second;
- otherwise by the **saddlepoint approximation** of Lugannani and Rice, with Daniels'
  continuity correction for the lattice, from the exact cumulant generating function
  K(s) = Σ log E[e^(s h)] of the rounds' exact laws. It follows the skew of long pays
  (a 41+ bet at 120 to 1) where the normal approximation does not, and its relative error
  in the tails shrinks like n^(−3/2) with the number of rounds.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from andar_bahar.chance.significance import normal_sf

__all__ = ["EXACT_DIGITS", "MICROS", "PLACES", "RoundLaw", "Tails"]

MICROS = 1_000_000
"""Amounts are worked out in whole millionths of a chip (no amount has more places)."""
EXACT_DIGITS = 1_000_000
"""The exact law of a night is worked out when it holds at most this many digits (37 a
lattice point), and no step of working it out handles more than twice as many: half a
second at most. Beyond, the saddlepoint approximation is used."""


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


# -- the tails: exact on the lattice, else by the saddlepoint ------------------------------


@dataclass(frozen=True, slots=True)
class Tails:
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
    def of(cls, laws: Sequence[tuple[RoundLaw, int]], variance: Fraction) -> Tails:
        """The tails of the sum of *laws* (each with how many rounds have it), whose
        variance is *variance* (chips²)."""
        offset = sum(r.values[0] * n for r, n in laws)
        span = 0
        for r, _ in laws:
            for v in r.values:
                span = math.gcd(span, v - r.values[0])
        if span == 0:
            return cls(offset, 1, 0, _Listed(0, [1]), None)
        top = sum((r.values[-1] - r.values[0]) // span * n for r, n in laws)
        # Chances below 10⁻¹⁸ are rounded to 0 and dropped: what is left lies within some
        # 30 SD (or the whole lattice, if it is shorter).
        reach = min(top + 1, 30 * math.sqrt(float(variance)) * MICROS / span + 1)
        exact = _convolve(laws, span) if reach * _SLOT <= EXACT_DIGITS else None
        if exact is not None:
            return cls(offset, span, top, exact, None)
        return cls(offset, span, top, None, _Saddlepoint.of(laws, variance, span, top))

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


def _convolve(laws: Sequence[tuple[RoundLaw, int]], span: int) -> _Listed | None:
    """The law of the total in units of 10⁻¹⁸ (``None``: longer than :data:`EXACT_DIGITS`).

    Each round's law is a polynomial in x (its chance of the lattice point j the
    coefficient of x^j); the law of the total is their product. The polynomials are
    multiplied as whole numbers (Kronecker's substitution x = 10^SLOT), pairwise up a tree.
    """
    packed = []
    for r, count in laws:
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
    def of(
        cls, rounds: Sequence[tuple[RoundLaw, int]], variance: Fraction, span: int, top: int
    ) -> _Saddlepoint:
        sd = math.sqrt(float(variance)) * MICROS
        laws = []
        z0 = 0.0
        for r, count in rounds:
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
