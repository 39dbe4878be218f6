"""The shuffle audit: is every deck dealt as a fair shuffle deals it?

Gaming test labs (GLI, iTech Labs, eCOGRA) ask for this evidence. :func:`audit`
takes many shuffled decks (rows of card indices 0–51, see
:data:`~andar_bahar.engine.cards.FULL_DECK`) and runs six tests, each with a p-value
(the chance that a fair shuffle gives a result at least as far from what is
expected):

1. **card × position** — how often each card lies at each position (52 × 52);
2. **adjacent cards** — how often card *b* lies just below card *a* (52 × 51 ordered pairs);
3. **cards dealt** — the classic round dealt from each deck (the top card is the
   centre; cards are dealt until the first of its rank) against the exact odds
   of :mod:`andar_bahar.chance.odds`;
4. **Andar rate** — Andar wins when an odd number of cards is dealt: 429/833;
5. **runs** — the Wald–Wolfowitz runs test on the winning rows of consecutive
   decks (one deck must not tell anything about the next);
6. **coverage** — every centre card and every count of cards dealt that a fair
   shuffle shows in a run of this size did occur.

A test passes when its p-value is at least *alpha* (0.01 by default: each test
rejects a fair shuffle in one run out of a hundred); coverage passes when
nothing is missing. The decks come from :func:`live_decks` (the live shuffle,
:func:`andar_bahar.engine.cards.shuffled` with the operating system's secure source),
:func:`simulator_decks` (the simulator's numpy PCG64 streams) or
:func:`broken_decks` (the classic "swap with any position" mistake, the
negative control that must fail). See ``docs/randomness.md``.

>>> report = audit(simulator_decks(20_000, seed=1))
>>> [(test.name, test.passed) for test in report.tests]  # doctest: +NORMALIZE_WHITESPACE
[('card-position', True), ('adjacency', True), ('cards-dealt', True),
 ('andar-rate', True), ('runs', True), ('coverage', True)]
>>> audit(broken_decks(20_000, seed=1)).passed
False
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from andar_bahar.chance.fairness_options import ALPHA, CARDS, Source
from andar_bahar.chance.odds import outcome_distribution
from andar_bahar.chance.significance import pooled
from andar_bahar.engine.cards import FULL_DECK, shuffled
from andar_bahar.engine.money import decimal_sign
from andar_bahar.engine.rules import Row, find_procedure
from andar_bahar.i18n.messages import N_, NP_, Message, Translator

__all__ = [
    "ALPHA",
    "AuditReport",
    "Source",
    "TestResult",
    "audit",
    "broken_decks",
    "live_decks",
    "simulator_decks",
]

_CHUNK = 1 << 14  # decks tallied (and shuffled) at a time: bounded memory, a moving progress bar


def _stats() -> Any:
    """scipy.stats, imported on first use (it takes most of a second: not on every command)."""
    from scipy import stats  # type: ignore[import-untyped]

    return stats


Progress = Callable[[int], None]
"""Told how many more decks are ready."""


# -- results ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Number:
    """A figure inside a message, with the user's decimal sign."""

    value: float
    places: int

    def localized(self, translator: Translator | None) -> str:
        return f"{self.value:.{self.places}f}".replace(".", decimal_sign(translator))


_TITLES: dict[str, str] = {
    "card-position": N_("card × position"),
    "adjacency": N_("adjacent cards"),
    "cards-dealt": N_("cards dealt"),
    "andar-rate": N_("Andar rate"),
    "runs": N_("runs of winning rows"),
    "coverage": N_("coverage"),
}


@dataclass(frozen=True, slots=True)
class TestResult:
    """One test: its statistic, its p-value (``None`` for coverage) and whether it passed."""

    __test__: ClassVar[bool] = False  # not a pytest test class

    name: str
    statistic: float
    p_value: float | None
    passed: bool
    detail: Message

    @property
    def title(self) -> Message:
        """The test's name for people, in their language."""
        return Message(_TITLES[self.name])

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "statistic": self.statistic,
            "p_value": self.p_value,
            "passed": self.passed,
        }


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The six tests of one audit; it passes when every test passes."""

    decks: int
    alpha: float
    tests: tuple[TestResult, ...]

    @property
    def passed(self) -> bool:
        return all(test.passed for test in self.tests)

    @property
    def failed(self) -> tuple[TestResult, ...]:
        return tuple(test for test in self.tests if not test.passed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "decks": self.decks,
            "alpha": self.alpha,
            "tests": [test.to_dict() for test in self.tests],
            "passed": self.passed,
        }


# -- the sources of decks -------------------------------------------------------------


def _chunks(n: int) -> Iterable[tuple[int, int]]:
    for start in range(0, n, _CHUNK):
        yield start, min(_CHUNK, n - start)


def live_decks(n: int, *, progress: Progress | None = None) -> NDArray[np.uint8]:
    """*n* decks shuffled by the live shuffle itself: :func:`andar_bahar.engine.cards.shuffled`.

    Nothing is replaced: each deck is ``shuffled()`` with its default source,
    :class:`random.SystemRandom` (the operating system's secure source, the one
    the club table uses), and each card is then written as its index in
    :data:`~andar_bahar.engine.cards.FULL_DECK`.
    """
    index = {card: i for i, card in enumerate(FULL_DECK)}
    decks = np.empty((n, CARDS), dtype=np.uint8)
    for start, size in _chunks(n):
        decks[start : start + size] = [[index[card] for card in shuffled()] for _ in range(size)]
        if progress is not None:
            progress(size)
    return decks


def simulator_decks(
    n: int, seed: int | None = None, *, progress: Progress | None = None
) -> NDArray[np.uint8]:
    """*n* decks from the simulator's generator: numpy PCG64 seeded by a :class:`~numpy.random.SeedSequence`.

    As in :mod:`andar_bahar.chance.simulation`, block *i* of
    :data:`~andar_bahar.chance.simulation.BLOCK` decks draws from the child stream
    ``SeedSequence(seed, spawn_key=(i,))``; each deck is a full Fisher–Yates
    shuffle by :meth:`numpy.random.Generator.permuted`, the simulator's numpy
    path (its bounded draws are 32-bit words masked to the next power of two
    and rejected above the bound: no modulo bias). The compiled kernel deals
    from the same streams with Lemire's draw, enumerated in the tests.

    >>> bool((simulator_decks(3, seed=5) == simulator_decks(3, seed=5)).all())
    True
    """
    from andar_bahar.chance.simulation import BLOCK

    decks = np.empty((n, CARDS), dtype=np.uint8)
    ordered = np.arange(CARDS, dtype=np.uint8)
    for block, block_start in enumerate(range(0, n, BLOCK)):
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(block,))))
        for start, size in _chunks(min(BLOCK, n - block_start)):
            at = block_start + start
            decks[at : at + size] = rng.permuted(np.tile(ordered, (size, 1)), axis=1)
            if progress is not None:
                progress(size)
    return decks


def broken_decks(
    n: int, seed: int | None = None, *, progress: Progress | None = None
) -> NDArray[np.uint8]:
    """*n* decks shuffled the classic wrong way: swap each position with **any** position.

    ``for i in range(52): swap(i, randrange(52))`` follows 52⁵² equally likely
    paths, which cannot fall evenly on the 52! orders (52! does not divide
    52⁵²): some decks come out more often than others (card *i* + 1 ends at
    position *i* about 1.33 times too often). The audit must fail it. The draws themselves
    are fair (numpy PCG64, seeded as :func:`simulator_decks`): only the
    algorithm is wrong. It runs on every deck at once, one position at a time.

    >>> broken_decks(1, seed=1).shape
    (1, 52)
    """
    decks = np.empty((n, CARDS), dtype=np.uint8)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    for start, size in _chunks(n):
        deck = np.tile(np.arange(CARDS, dtype=np.uint8), (size, 1))
        rows = np.arange(size)
        swaps = rng.integers(0, CARDS, size=(size, CARDS))
        for i in range(CARDS):
            j = swaps[:, i]
            held = deck[:, i].copy()
            deck[:, i] = deck[rows, j]
            deck[rows, j] = held
        decks[start : start + size] = deck
        if progress is not None:
            progress(size)
    return decks


# -- the tallies -------------------------------------------------------------------


@dataclass(slots=True)
class _Tally:
    """The counts of all six tests, added up chunk by chunk."""

    decks: int = 0
    card_position: NDArray[np.int64] | None = None
    adjacency: NDArray[np.int64] | None = None
    centres: NDArray[np.int64] | None = None
    dealt: NDArray[np.int64] | None = None
    andar: int = 0
    runs: int = 0
    last_winner: bool | None = None

    def add(self, decks: NDArray[np.uint8]) -> None:
        wide = decks.astype(np.intp)
        positions = np.arange(CARDS, dtype=np.intp)
        self.card_position = _plus(self.card_position, wide * CARDS + positions, CARDS * CARDS)
        self.adjacency = _plus(self.adjacency, wide[:, :-1] * CARDS + wide[:, 1:], CARDS * CARDS)
        self.centres = _plus(self.centres, wide[:, 0], CARDS)
        ranks = wide >> 2  # index = rank order × 4 + suit
        matches = ranks[:, 1:] == ranks[:, :1]
        dealt = np.argmax(matches, axis=1) + 1  # the first card of the centre's rank
        self.dealt = _plus(self.dealt, dealt, CARDS)
        andar = (dealt % 2 == 1).astype(np.int8)  # the classic start: Andar first
        self.andar += int(andar.sum())
        self.runs += int(np.count_nonzero(andar[1:] != andar[:-1]))
        first = bool(andar[0])
        self.runs += 1 if self.last_winner is None or self.last_winner != first else 0
        self.last_winner = bool(andar[-1])
        self.decks += decks.shape[0]


def _plus(
    total: NDArray[np.int64] | None, values: NDArray[np.intp], size: int
) -> NDArray[np.int64]:
    counts = np.bincount(values.ravel(), minlength=size).astype(np.int64)
    return counts if total is None else total + counts


def _as_decks(decks: NDArray[np.integer[Any]] | Iterable[Sequence[int]]) -> NDArray[np.uint8]:
    array = np.asarray(decks if isinstance(decks, np.ndarray) else list(decks))
    if array.ndim != 2 or array.shape[1] != CARDS or array.shape[0] == 0:
        raise ValueError(f"audit() needs decks of {CARDS} card indices, not shape {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"audit() needs card indices (integers), not {array.dtype}")
    ordered = np.arange(CARDS)
    for start, size in _chunks(array.shape[0]):
        if not (np.sort(array[start : start + size], axis=1) == ordered).all():
            raise ValueError("audit() needs complete decks: each row holds every index 0–51 once")
    return array.astype(np.uint8, copy=False)


# -- the tests ---------------------------------------------------------------------


def _scaled_chi2_sf(statistic: float, weights: dict[float, int]) -> float:
    """P(Q ≥ *statistic*) for Q = Σ weight · χ²₁, with each weight's multiplicity.

    Q is matched by c · χ²_ν with the same mean and variance (Satterthwaite);
    with the weights of this module (all close to 1, or tiny) the error is below
    10⁻⁶ at p = 0.01 and 0.001 (checked against Imhof's exact inversion).
    """
    mean = sum(w * k for w, k in weights.items())
    variance = 2 * sum(w * w * k for w, k in weights.items())
    scale = variance / (2 * mean)
    return float(_stats().chi2.sf(statistic / scale, mean / scale))


def _card_position(tally: _Tally) -> TestResult:
    """Pearson's X² over the 52 × 52 table of card × position.

    Every deck puts each card at exactly one position and one card at each
    position, so both margins are fixed at N, and a uniform random permutation's
    cells have the covariance ``P / (n − 1)``, P being the projection onto the
    (n − 1)² doubly-centred tables. Hence X² → (n / (n − 1)) · χ²((n − 1)²): the
    textbook χ²(2601) without the factor 52/51 would reject fair shuffles too
    often.
    """
    assert tally.card_position is not None
    n, decks = CARDS, tally.decks
    expected = decks / n
    x2 = float(((tally.card_position - expected) ** 2).sum() / expected)
    df = (n - 1) ** 2
    p = float(_stats().chi2.sf(x2 * (n - 1) / n, df))
    detail = Message(
        N_(
            "{decks} decks in 52 × 52 cells, {expected} expected in each;"
            " X² against 52/51 · χ² with {df} degrees of freedom."
        ),
        decks=decks,
        expected=_Number(expected, 1),
        df=df,
    )
    return TestResult("card-position", x2, p, True, detail)


def _adjacency_weights(n: int = CARDS) -> dict[float, int]:
    """The null distribution of the adjacency X²: Σ λ · χ²₁ over these λ (with multiplicity).

    For one uniform permutation, the indicators "b lies just below a" have
    variance 1/n − 1/n², covariance −1/n² when they cannot both hold (same a,
    same b, or a↔b), 1/(n(n−1)) − 1/n² when they chain (a b c) or are disjoint.
    The eigenvalues of n × that covariance are 1 (n(n−3)/2 times), (n+1)/(n−1)
    (n(n−3)/2 + 1 times), 1/(n−1) (2(n−1) times) and 0 (once): their sum, the
    mean of X², is (n − 1)² = 2601 for 52 cards, its variance 2 · 2651.
    """
    half = n * (n - 3) // 2
    return {1.0: half, (n + 1) / (n - 1): half + 1, 1 / (n - 1): 2 * (n - 1)}


def _adjacency(tally: _Tally) -> TestResult:
    assert tally.adjacency is not None
    n, decks = CARDS, tally.decks
    pairs = tally.adjacency.reshape(n, n)[~np.eye(n, dtype=bool)]  # a card never follows itself
    expected = decks * (n - 1) / (n * (n - 1))
    x2 = float(((pairs - expected) ** 2).sum() / expected)
    p = _scaled_chi2_sf(x2, _adjacency_weights(n))
    detail = Message(
        N_(
            "{pairs} pairs of adjacent cards in 52 × 51 ordered pairs, {expected} expected"
            " in each; X² against its exact limit (mean 2601, variance 5302)."
        ),
        pairs=decks * (n - 1),
        expected=_Number(expected, 1),
    )
    return TestResult("adjacency", x2, p, True, detail)


def _dealt_probabilities() -> dict[int, Fraction]:
    return outcome_distribution(find_procedure("classic")).cards_dealt


def _cards_dealt(tally: _Tally) -> TestResult:
    assert tally.dealt is not None
    probabilities = _dealt_probabilities()
    counts = list(probabilities)
    observed = [int(tally.dealt[k]) for k in counts]
    expected = [tally.decks * float(probabilities[k]) for k in counts]
    groups_o, groups_e = pooled(observed, expected)
    x2 = sum((o - e) ** 2 / e for o, e in zip(groups_o, groups_e, strict=True))
    df = len(groups_o) - 1
    p = float(_stats().chi2.sf(x2, df)) if df > 0 else 1.0
    detail = Message(
        N_(
            "The classic round dealt from each deck: {cells} classes of 1–49 cards"
            " (pooled to at least 5 expected) against the exact odds, {df} degrees of freedom."
        ),
        cells=len(groups_o),
        df=df,
    )
    return TestResult("cards-dealt", float(x2), p, True, detail)


def _andar_rate(tally: _Tally) -> TestResult:
    exact = outcome_distribution(find_procedure("classic")).probability_of(Row.ANDAR)
    p0, decks = float(exact), tally.decks
    z = (tally.andar - decks * p0) / math.sqrt(decks * p0 * (1 - p0))
    p = float(_stats().binomtest(tally.andar, decks, p0).pvalue)
    detail = Message(
        N_(
            "Andar won {andar} of {decks} classic rounds ({rate} %) against the exact"
            " {exact} ({exact_rate} %); the statistic is z, the p-value the exact binomial test's."
        ),
        andar=tally.andar,
        decks=decks,
        rate=_Number(100 * tally.andar / decks, 3),
        exact=f"{exact.numerator}/{exact.denominator}",
        exact_rate=_Number(100 * p0, 3),
    )
    return TestResult("andar-rate", z, min(p, 1.0), True, detail)


def _runs(tally: _Tally) -> TestResult:
    n = tally.decks
    n1, n2 = tally.andar, tally.decks - tally.andar
    mean = 2 * n1 * n2 / n + 1
    variance = 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1)) if n > 1 else 0.0
    if variance > 0:
        z = (tally.runs - mean) / math.sqrt(variance)
        p = float(2 * _stats().norm.sf(abs(z)))
    else:  # one row only (or one deck): the runs are fixed, nothing to test
        z, p = 0.0, 1.0
    detail = Message(
        N_(
            "{runs} runs of the same winning row in {decks} consecutive rounds,"
            " {expected} expected given {andar} Andar and {bahar} Bahar wins; the statistic is z."
        ),
        runs=tally.runs,
        decks=n,
        expected=_Number(mean, 1),
        andar=n1,
        bahar=n2,
    )
    return TestResult("runs", z, p, True, detail)


_COVERAGE_CELLS = CARDS + 49  # 52 centre cards and the counts 1–49


def _coverage(tally: _Tally, alpha: float) -> TestResult:
    """Every cell a fair shuffle shows in a run of this size occurred.

    A cell of chance p is missed by a fair shuffle in N decks with probability
    (1 − p)^N; it is checked when that is at most alpha / 101, so that the 101
    cells together (52 centre cards, 49 counts) fail a fair shuffle at most
    once in 1/alpha runs, like every other test. At 200,000 decks every cell is
    checked (the rarest, 49 cards dealt, p = 1/20825, expects 9.6).
    """
    assert tally.centres is not None and tally.dealt is not None
    limit = math.log(alpha / _COVERAGE_CELLS)

    def checked(p: float) -> bool:
        return tally.decks * math.log1p(-p) <= limit

    centres_checked = checked(1 / CARDS)
    missing_cards = [FULL_DECK[i] for i in range(CARDS) if tally.centres[i] == 0]
    missing_cards = missing_cards if centres_checked else []
    probabilities = _dealt_probabilities()
    checked_counts = [k for k, p in probabilities.items() if checked(float(p))]
    rare = [k for k in probabilities if k not in checked_counts]
    missing_counts = [k for k in checked_counts if tally.dealt[k] == 0]
    missing = len(missing_cards) + len(missing_counts)
    found = Message(
        N_(
            "{centres} of 52 centre cards and {counts} of 49 counts of cards dealt checked:"
            " {missing} missing."
        ),
        centres=CARDS if centres_checked else 0,
        counts=len(checked_counts),
        missing=missing,
    )
    detail = found
    if missing:
        counts = [Message(NP_("{n} card dealt", "{n} cards dealt"), n=k) for k in missing_counts]
        detail = Message(
            N_("{found} Missing: {missing}."), found=found, missing=[*missing_cards, *counts]
        )
    if rare:
        detail = Message(
            N_("{found} Too rare to be expected in {decks} decks, not checked: {counts}."),
            found=detail,
            decks=tally.decks,
            counts=_span(rare),
        )
    return TestResult("coverage", float(missing), None, missing == 0, detail)


def _span(counts: list[int]) -> str:
    """``20–49`` for a run of counts, else the counts one by one."""
    if len(counts) > 2 and counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}–{counts[-1]}"
    return ", ".join(map(str, counts))


def audit(
    decks: NDArray[np.integer[Any]] | Iterable[Sequence[int]], *, alpha: float = ALPHA
) -> AuditReport:
    """Run the six tests on *decks* (rows of the card indices 0–51, each index once).

    A perfectly uniform set of decks (each card at each position equally often)
    passes the card × position test with X² = 0, p = 1:

    >>> latin = [[(i + j) % 52 for j in range(52)] for i in range(52)]
    >>> first = audit(latin).tests[0]
    >>> first.name, first.statistic, first.p_value
    ('card-position', 0.0, 1.0)
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha}")
    array = _as_decks(decks)
    tally = _Tally()
    for start, size in _chunks(array.shape[0]):
        tally.add(array[start : start + size])
    results = [
        _card_position(tally),
        _adjacency(tally),
        _cards_dealt(tally),
        _andar_rate(tally),
        _runs(tally),
    ]
    judged = (replace(r, passed=r.p_value is not None and r.p_value >= alpha) for r in results)
    tests = (*judged, _coverage(tally, alpha))
    return AuditReport(tally.decks, alpha, tests)
