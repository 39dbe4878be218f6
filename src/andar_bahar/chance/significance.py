"""Significance without scipy: the normal and χ² tails, the exact multinomial test, power.

The hold report and the shuffle check run in the web server, whose extra has no scipy, so
the few tails they need are written here in pure Python:

- :func:`normal_sf` — the standard normal's upper tail, from :func:`math.erfc` (accurate
  far into the tail, where ``1 − Φ`` would round to 0);
- :func:`chi2_sf` — the χ² tail, the incomplete gamma function :func:`gamma_sf` (by its
  series and its continued fraction);
- :func:`pearson_power` — the power of Pearson's χ² against a given bias;
- :func:`multinomial_test` — the exact test of counts against cell probabilities that
  are :class:`~fractions.Fraction`: every table of counts with the same total is listed
  and weighed by exact integers, and the p-value is the chance of a table no more likely
  than the one observed (the "probability ordering" of Fisher's exact tests);
- :func:`chi_square_test` — Pearson's χ² where every expected count is at least 5, the
  exact test where the counts are small, neighbouring cells pooled where neither will do.

>>> round(chi2_sf(3.841458820694124, 1), 6), round(chi2_sf(5.991464547107979, 2), 6)
(0.05, 0.05)
>>> round(normal_sf(1.959963984540054), 6)
0.025
>>> multinomial_test([3, 0], [Fraction(1, 2), Fraction(1, 2)])   # 3 heads: 2 × 1/8
Fraction(1, 4)
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce

__all__ = [
    "EXACT_TABLES",
    "MIN_EXPECTED",
    "CellTest",
    "chi2_critical",
    "chi2_sf",
    "chi_square_test",
    "gamma_sf",
    "multinomial_test",
    "normal_sf",
    "pearson_power",
    "pool_groups",
    "pooled",
    "two_sided",
]

MIN_EXPECTED = 5.0
"""Pearson's χ² is used when every cell expects at least this many (Cochran's rule)."""
EXACT_TABLES = 50_000
"""The exact multinomial test is used when it has at most this many tables of counts to
weigh (3 cells up to 314 rounds, 8 cells up to 14): a fraction of a second."""


def normal_sf(z: float) -> float:
    """P(Z ≥ z) for a standard normal Z (``erfc``: accurate in the far tail)."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def two_sided(low: float, high: float) -> float:
    """The two-sided p-value of a result with P(T ≤ t) = *low* and P(T ≥ t) = *high*:
    twice the smaller tail, at most 1.

    >>> two_sided(0.01, 0.995), two_sided(0.6, 0.7)
    (0.02, 1.0)
    """
    return min(1.0, 2 * min(low, high))


def gamma_sf(shape: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a): the upper tail of a gamma law of *shape* a and scale 1.

    Its series below x = a + 1, Lentz's continued fraction above (both to a relative 10⁻¹⁵).

    >>> round(gamma_sf(1.0, 2.0), 12) == round(math.exp(-2.0), 12)
    True
    """
    if shape <= 0:
        raise ValueError(f"a gamma law needs a positive shape, not {shape}")
    if x <= 0:
        return 1.0
    log_front = -x + shape * math.log(x) - math.lgamma(shape)
    if x < shape + 1:  # P(a, x) = e^(−x) x^a / Γ(a) · Σ x^j / (a (a + 1) … (a + j))
        term = total = 1 / shape
        a = shape
        for _ in range(100_000):
            a += 1
            term *= x / a
            total += term
            if term < total * 1e-16:
                break
        return max(0.0, 1 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - shape
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - shape)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return min(1.0, math.exp(log_front) * h)


def chi2_sf(x: float, df: float) -> float:
    """P(χ²_df ≥ x): the gamma law of shape df/2 and scale 2.

    >>> chi2_sf(0.0, 3), round(chi2_sf(16.918977604620448, 9), 9)
    (1.0, 0.05)
    """
    if df <= 0:
        raise ValueError(f"a χ² needs degrees of freedom, not {df}")
    return gamma_sf(df / 2, x / 2)


def pearson_power(
    rounds: int, fair: Sequence[float], biased: Sequence[float], level: float
) -> float:
    """The chance that Pearson's X² of *rounds* counts against the cell chances *fair*
    rejects at *level*, when the counts really fall with the chances *biased*.

    X² + n = Σ O_i² / (n p_i), so its mean and variance under Mult(n, q) follow from the
    multinomial's factorial moments (E[O_i^(a) O_j^(b)] = n^(a+b) q_i^a q_j^b); a gamma law
    with that mean and variance stands for X² (closer than the noncentral χ², which takes
    the cells' spread from the fair chances).

    >>> round(pearson_power(100, [0.5, 0.5], [0.5, 0.5], 0.05), 2)   # no bias: the level
    0.05
    """
    n = rounds

    def falling(k: int) -> float:
        return float(math.prod(range(n - k + 1, n + 1)))

    weights = [1 / (n * p) for p in fair]
    squares = [n * q * (1 - q) + n * n * q * q for q in biased]
    mean = sum(w * e for w, e in zip(weights, squares, strict=True)) - n
    variance = 0.0
    for i, qi in enumerate(biased):
        for j, qj in enumerate(biased):
            if i == j:
                both = falling(4) * qi**4 + 6 * falling(3) * qi**3 + 7 * falling(2) * qi**2
                both += n * qi
            else:
                both = falling(4) * qi * qi * qj * qj + falling(2) * qi * qj
                both += falling(3) * (qi * qi * qj + qi * qj * qj)
            variance += weights[i] * weights[j] * (both - squares[i] * squares[j])
    if variance <= 0 or mean <= 0:
        return 0.0
    critical = chi2_critical(level, len(fair) - 1)
    return gamma_sf(mean * mean / variance, critical * mean / variance)


def chi2_critical(alpha: float, df: float) -> float:
    """The x with P(χ²_df ≥ x) = *alpha* (by bisection; to a relative 10⁻¹²).

    >>> round(chi2_critical(0.05, 1), 6)
    3.841459
    """
    low, high = 0.0, max(1.0, float(df))
    while chi2_sf(high, df) > alpha:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if chi2_sf(middle, df) > alpha:
            low = middle
        else:
            high = middle
        if high - low <= 1e-12 * high:
            break
    return (low + high) / 2


def _compositions(n: int, cells: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of *cells* counts ≥ 0 that add up to *n*."""
    if cells == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in _compositions(n - first, cells - 1):
            yield (first, *rest)


def multinomial_test(observed: Sequence[int], probabilities: Sequence[Fraction]) -> Fraction:
    """The exact p-value of *observed* counts against cell *probabilities* (adding up to 1).

    With the probabilities over a common denominator D (p_i = a_i / D), a table c of n
    counts has the chance ``n! / Π c_i! · Π a_i^c_i / D^n``: the weights are whole numbers,
    compared exactly. The p-value is the chance of every table whose weight is at most the
    observed one's. There are C(n + k − 1, k − 1) tables: see :data:`EXACT_TABLES`.

    >>> multinomial_test([2, 1, 1], [Fraction(1, 3)] * 3)
    Fraction(1, 1)
    """
    if len(observed) != len(probabilities) or sum(probabilities) != 1:
        raise ValueError("one probability per cell, adding up to 1")
    n = sum(observed)
    denominator = reduce(math.lcm, (p.denominator for p in probabilities), 1)
    a = [p.numerator * (denominator // p.denominator) for p in probabilities]
    factorials = [math.factorial(i) for i in range(n + 1)]

    def weight(counts: Sequence[int]) -> int:
        coefficient = factorials[n]
        for c in counts:
            coefficient //= factorials[c]
        for ai, c in zip(a, counts, strict=True):
            coefficient *= ai**c
        return coefficient

    seen = weight(observed)
    total = sum(w for c in _compositions(n, len(a)) if (w := weight(c)) <= seen)
    return Fraction(total, denominator**n)


def tables_to_weigh(n: int, cells: int) -> int:
    """How many tables of counts the exact test of *n* counts in *cells* cells lists."""
    return math.comb(n + cells - 1, cells - 1)


def pooled(observed: Sequence[int], expected: Sequence[float]) -> tuple[list[int], list[float]]:
    """Neighbouring cells merged until each expects at least 5 (a short tail joins the last).

    >>> pooled([1, 2, 7, 1], [2.0, 3.5, 6.0, 0.5])
    ([3, 8], [5.5, 6.5])
    """
    groups = pool_groups(expected)
    return (
        [sum(observed[i] for i in g) for g in groups],
        [sum(expected[i] for i in g) for g in groups],
    )


@dataclass(frozen=True, slots=True)
class CellTest:
    """The test of counts in cells: which was run, its statistic and p-value.

    ``method`` is ``chi-square`` (Pearson's X² against χ² with ``df`` degrees of freedom),
    ``exact`` (:func:`multinomial_test`; ``statistic`` is still Pearson's X²) or ``none``
    (too few rounds: everything pooled into one cell). ``groups`` says which of the cells
    were pooled into each cell tested (one index each when none were).
    """

    method: str
    statistic: float
    df: int
    p_value: float
    groups: tuple[tuple[int, ...], ...]


def chi_square_test(observed: Sequence[int], probabilities: Sequence[Fraction]) -> CellTest:
    """Counts in ordered cells against their chances: the right test for the counts.

    1. every cell expects at least 5: Pearson's χ²;
    2. else, when there are few enough tables of counts (:data:`EXACT_TABLES`): the exact
       multinomial test on the cells as they are;
    3. else: neighbouring cells pooled until each expects 5 (:func:`pooled`), then χ² —
       or nothing at all, if only one cell is left.

    >>> test = chi_square_test([30, 10], [Fraction(1, 2), Fraction(1, 2)])
    >>> test.method, test.df, round(test.p_value, 6)
    ('chi-square', 1, 0.001565)
    >>> chi_square_test([3, 1], [Fraction(1, 2), Fraction(1, 2)]).method
    'exact'
    """
    n = sum(observed)
    expected = [n * float(p) for p in probabilities]
    every = tuple((i,) for i in range(len(observed)))
    x2 = _pearson(observed, expected)
    if n and min(expected) >= MIN_EXPECTED:
        df = len(observed) - 1
        return CellTest("chi-square", x2, df, chi2_sf(x2, df) if df else 1.0, every)
    if n and tables_to_weigh(n, len(observed)) <= EXACT_TABLES:
        p = multinomial_test(observed, probabilities)
        return CellTest("exact", x2, len(observed) - 1, float(p), every)
    groups = pool_groups(expected)
    grouped_o, grouped_e = pooled(observed, expected)
    if len(groups) < 2:
        return CellTest("none", 0.0, 0, 1.0, tuple(groups))
    x2 = _pearson(grouped_o, grouped_e)
    df = len(groups) - 1
    return CellTest("chi-square", x2, df, chi2_sf(x2, df), tuple(groups))


def _pearson(observed: Sequence[int], expected: Sequence[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True) if e > 0)


def pool_groups(expected: Sequence[float]) -> list[tuple[int, ...]]:
    """Which neighbouring cells are merged so that each group expects at least 5 (a short
    tail joins the last group).

    >>> pool_groups([2.0, 3.5, 6.0, 0.5])
    [(0, 1), (2, 3)]
    """
    groups: list[list[int]] = []
    run: list[int] = []
    run_e = 0.0
    for i, e in enumerate(expected):
        run.append(i)
        run_e += e
        if run_e >= MIN_EXPECTED:
            groups.append(run)
            run, run_e = [], 0.0
    if run:
        if groups:
            groups[-1].extend(run)
        else:
            groups = [run]
    return [tuple(g) for g in groups]
