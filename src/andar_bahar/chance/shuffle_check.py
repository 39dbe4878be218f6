"""The shuffle check: do the rounds a dealer dealt look like rounds of a fair shuffle?

A club that deals from a real deck cannot audit the shuffle card by card (the cards
after the match are never turned). What it can check is what every round shows, against
its exact distribution under a fair shuffle (:mod:`andar_bahar.chance.odds`):

1. **cards dealt**, counted in the paytable's bands (a dealer who places a matching card
   near the top makes short rounds too common);
2. **the row dealt first wins** (it wins when an odd number of cards is dealt);
3. **the winner by colour**, where the start rule uses a colour (the centre card's, or the
   first dealt card's: that colour picks the row dealt first): the four cells of colour ×
   winning row;
4. **the centre card's rank**, where there is a centre card: each rank one time in 13.

Each is a test of counts in cells (:func:`~andar_bahar.chance.significance.chi_square_test`:
Pearson's χ² where every cell expects 5 or more, the exact multinomial test where the
counts are small). Four tests on one set of rounds would flag a fair dealer more often
than any one of them, so each is judged at 5 % divided by the number of tests
(Bonferroni): a fair shuffle is flagged in at most 5 % of sets of rounds.

**Power.** :class:`EarlyMatch` is the bias to look for: in a share of the rounds, one of
the matching cards is placed among the first few dealt. Its exact distribution of cards
dealt gives the law of the cards-dealt test's X² under the bias, hence how many rounds
find such a dealer 8 times in 10 (:func:`rounds_needed`).

>>> from andar_bahar.engine.rules import find_procedure
>>> from andar_bahar.engine.paytables import find_paytable
>>> classic, bands = find_procedure("classic"), find_paytable("wizard").bands
>>> rounds_needed(classic, tuple(b.bet for b in bands), EarlyMatch())
708
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from andar_bahar.chance.odds import first_match_distribution, outcome_distribution
from andar_bahar.chance.significance import (
    CellTest,
    chi_square_test,
    pearson_power,
    pool_groups,
)
from andar_bahar.engine.bets import MAX_CARDS_DEALT, CardsBet
from andar_bahar.engine.cards import Card, Colour, Rank
from andar_bahar.engine.money import decimal_sign
from andar_bahar.engine.rules import Procedure, Row, StartRule, TargetMode
from andar_bahar.i18n.messages import N_, NP_, Localizable, Message, Translator

__all__ = [
    "ALPHA",
    "EARLY_MATCH",
    "POWER",
    "CheckedTest",
    "DealtRound",
    "EarlyMatch",
    "ShuffleCheck",
    "check_shuffle",
    "rounds_needed",
]

ALPHA = 0.05
"""The chance that the whole check flags a fair shuffle, at most."""
POWER = 0.8
"""The power :func:`rounds_needed` asks for: the bias found 8 times in 10."""
MIN_ROUNDS = 20
"""Fewer rounds than this, none unusual: too few to say "nothing unusual"."""


@dataclass(frozen=True, slots=True)
class DealtRound:
    """What the check reads of a round: its centre card (``None``: a chosen rank), the row
    dealt first, the winning row and the number of cards dealt."""

    centre: Card | None
    first_row: Row
    winner: Row
    cards_dealt: int


@dataclass(frozen=True, slots=True)
class EarlyMatch:
    """A dealer's bias: in ``share`` of the rounds, one matching card is placed at a random
    place among the first ``within`` cards dealt (the rest shuffled fairly)."""

    share: Fraction = Fraction(1, 10)
    within: int = 5

    def cards_dealt(self, procedure: Procedure) -> dict[int, Fraction]:
        """P(cards dealt = k) with this bias.

        The planted card lies at j (uniform in 1 … within); the other matching cards lie
        fairly among the other places, the first of them the M-th of those (M as
        :func:`first_match_distribution` of one card and one match fewer), at place M, or
        M + 1 past j. The match is at the earlier of the two.

        >>> from andar_bahar.engine.rules import find_procedure
        >>> biased = EarlyMatch(Fraction(1)).cards_dealt(find_procedure("classic"))
        >>> sum(biased.values()), max(k for k, p in biased.items() if p)
        (Fraction(1, 1), 5)
        """
        chosen = procedure.target is TargetMode.CHOSEN_RANK
        pile, matching = (52, 4) if chosen else (51, 3)
        others = first_match_distribution(pile - 1, matching - 1)
        planted: dict[int, Fraction] = {}
        for j in range(1, self.within + 1):
            for m, p in others.items():
                k = min(j, m if m < j else m + 1)
                planted[k] = planted.get(k, Fraction(0)) + p / self.within
        fair = outcome_distribution(procedure).cards_dealt
        return {
            k: (1 - self.share) * fair.get(k, Fraction(0))
            + self.share * planted.get(k, Fraction(0))
            for k in sorted(set(fair) | set(planted))
        }

    def localized(self, translator: Translator | None) -> str:
        return Message(
            NP_(
                "a matching card placed among the first {within} card in {percent} % of rounds",
                "a matching card placed among the first {within} cards in {percent} % of rounds",
            ),
            n=self.within,
            within=self.within,
            percent=f"{float(self.share * 100):g}",
        ).localized(translator)


EARLY_MATCH = EarlyMatch()
"""The bias the check is sized for by default: a matching card among the first five cards in
one round of ten."""


# -- the cells of each test ---------------------------------------------------------------


def count_cells(bands: Sequence[CardsBet]) -> list[CardsBet]:
    """The bands of the paytable, in order, and every gap between them as a cell of its own
    (a paytable without side bets: the trainer's default bands).

    >>> [str(c) for c in count_cells([CardsBet(1, 5), CardsBet(11, 20)])]
    ['cards:1-5', 'cards:6-10', 'cards:11-20', 'cards:21-49']
    """
    if not bands:
        bands = [CardsBet(a, b) for a, b in _DEFAULT_BANDS]
    cells, at = [], 1
    for band in sorted(bands, key=lambda b: b.low):
        if band.low > at:
            cells.append(CardsBet(at, band.low - 1))
        cells.append(band)
        at = band.high + 1
    if at <= MAX_CARDS_DEALT:
        cells.append(CardsBet(at, MAX_CARDS_DEALT))
    return cells


_DEFAULT_BANDS = ((1, 5), (6, 10), (11, 15), (16, 25), (26, 30), (31, 35), (36, 40), (41, 49))


@dataclass(frozen=True, slots=True)
class CheckedTest:
    """One test of the check: its cells, counts, chances, the test run and what it found."""

    name: str
    """``cards-dealt``, ``first-row-wins``, ``colour-winner`` or ``centre-rank``."""
    cells: tuple[Localizable, ...]
    """What each cell counts (a band of cards dealt is its bet: ``1–5 cards dealt``)."""
    observed: tuple[int, ...]
    probabilities: tuple[Fraction, ...]
    test: CellTest
    level: float
    """The p-value below which this test flags the rounds (5 % over the number of tests)."""

    @property
    def rounds(self) -> int:
        return sum(self.observed)

    @property
    def flagged(self) -> bool:
        return self.test.method != "none" and self.test.p_value < self.level

    def expected(self) -> tuple[float, ...]:
        return tuple(self.rounds * float(p) for p in self.probabilities)

    def furthest(self) -> int:
        """The cell (of those tested, pooled ones counted together: their first) whose count
        is furthest from what was expected, in standard units."""
        n = self.rounds
        best, score = 0, -1.0
        for group in self.test.groups:
            observed = sum(self.observed[i] for i in group)
            p = float(sum(self.probabilities[i] for i in group))
            spread = (n * p * (1 - p)) ** 0.5 or 1.0
            if abs(observed - n * p) / spread > score:
                best, score = group[0], abs(observed - n * p) / spread
        return best

    def finding(self) -> Message:
        """The cell furthest from what was expected, in words."""
        cell = self.furthest()
        group = next(g for g in self.test.groups if cell in g)
        observed = sum(self.observed[i] for i in group)
        expected = sum(self.expected()[i] for i in group)
        label: Localizable = self.cells[cell]
        if len(group) > 1:
            label = _Cells(self.cells[group[0]], self.cells[group[-1]])
        return Message(
            N_("{cell}: {observed} where {expected} were expected"),
            cell=label,
            observed=observed,
            expected=_One(expected),
        )

    def headline(self) -> Message:
        """What a flagged test means, in a few words."""
        cell = self.furthest()
        group = next(g for g in self.test.groups if cell in g)
        more = sum(self.observed[i] for i in group) > sum(self.expected()[i] for i in group)
        if self.name == "cards-dealt":  # early: the cells before the median of cards dealt
            early = sum(self.probabilities[: group[-1] + 1], Fraction(0)) <= Fraction(1, 2)
            more = more == early
        return Message(_HEADLINES[self.name][0 if more else 1])


_HEADLINES = {
    "cards-dealt": (
        N_("the matching card comes early too often"),
        N_("the matching card comes late too often"),
    ),
    "first-row-wins": (
        N_("the row dealt first wins too often"),
        N_("the row dealt first wins too seldom"),
    ),
    "colour-winner": (
        N_("the winning row follows the colour unusually"),
        N_("the winning row follows the colour unusually"),
    ),
    "centre-rank": (
        N_("one rank comes as the centre card too often"),
        N_("one rank comes as the centre card too seldom"),
    ),
}


@dataclass(frozen=True, slots=True)
class _One:
    """A count expected, with one decimal."""

    value: float

    def localized(self, translator: Translator | None) -> str:
        return f"{self.value:.1f}".replace(".", decimal_sign(translator))


@dataclass(frozen=True, slots=True)
class _Cells:
    """Two cells pooled into one: ``1–5 … 11–15``."""

    first: Localizable
    last: Localizable

    def localized(self, translator: Translator | None) -> str:
        return f"{self.first.localized(translator)} … {self.last.localized(translator)}"


# -- the check -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShuffleCheck:
    """Every test of the check on one set of rounds, the verdict, and the power."""

    procedure: Procedure
    rounds: int
    tests: tuple[CheckedTest, ...]
    bias: EarlyMatch
    needed: int | None
    """The rounds that find :attr:`bias` 8 times in 10 (``None``: more than a million)."""
    power: float
    """The chance that the cards-dealt test finds :attr:`bias` in this many rounds."""

    @property
    def flagged(self) -> tuple[CheckedTest, ...]:
        return tuple(sorted((t for t in self.tests if t.flagged), key=lambda t: t.test.p_value))

    @property
    def unusual(self) -> bool:
        return bool(self.flagged)

    def verdict(self) -> Message:
        """ "Nothing unusual in 212 rounds", or what is unusual with its p-value."""
        if not self.flagged and self.rounds < MIN_ROUNDS:
            return Message(
                NP_(
                    "Too few rounds to check: {n} round.",
                    "Too few rounds to check: {n} rounds.",
                ),
                n=self.rounds,
            )
        if not self.flagged:
            return Message(
                NP_("Nothing unusual in {n} round.", "Nothing unusual in {n} rounds."),
                n=self.rounds,
            )
        worst = self.flagged[0]
        return Message(
            N_("Unusual: {headline}: p = {p} ({finding})."),
            headline=worst.headline(),
            p=PValue(worst.test.p_value),
            finding=worst.finding(),
        )

    def power_sentence(self) -> Message:
        """How many rounds find :attr:`bias`, and the chance of finding it in these."""
        if self.needed is None:
            return Message(N_("No number of rounds finds {bias} reliably."), bias=self.bias)
        return Message(
            N_(
                "A dealer with {bias} is found 8 times in 10 after {needed} rounds; these"
                " {n} rounds find such a dealer with a chance of {chance} %."
            ),
            bias=self.bias,
            needed=self.needed,
            n=self.rounds,
            chance=round(100 * self.power),
        )


@dataclass(frozen=True, slots=True)
class PValue:
    """A p-value for people: ``0.002``, ``0.31``, ``< 0.0001``."""

    value: float

    def localized(self, translator: Translator | None) -> str:
        p = self.value
        if p < 0.0001:
            text = "< 0.0001"
        else:
            text = f"{p:.4f}" if p < 0.01 else f"{p:.3f}" if p < 0.1 else f"{p:.2f}"
        return text.replace(".", decimal_sign(translator))


def check_shuffle(
    procedure: Procedure,
    rounds: Sequence[DealtRound],
    *,
    bands: Sequence[CardsBet] = (),
    bias: EarlyMatch = EARLY_MATCH,
) -> ShuffleCheck:
    """Check *rounds*, all dealt by *procedure*, against a fair shuffle (see the module)."""
    distribution = outcome_distribution(procedure)
    cells = count_cells(bands)
    parts: list[tuple[str, list[Localizable], list[int], list[Fraction]]] = []
    dealt = distribution.cards_dealt
    parts.append((
        "cards-dealt",
        list(cells),
        [sum(1 for r in rounds if c.low <= r.cards_dealt <= c.high) for c in cells],
        [sum((p for k, p in dealt.items() if c.low <= k <= c.high), Fraction(0)) for c in cells],
    ))  # fmt: skip
    first_wins = sum(
        (p for (f, w, _), p in distribution.probabilities.items() if f is w), Fraction(0)
    )
    won_first = sum(1 for r in rounds if r.first_row is r.winner)
    parts.append((
        "first-row-wins",
        [Message(N_("the row dealt first won")), Message(N_("the other row won"))],
        [won_first, len(rounds) - won_first],
        [first_wins, 1 - first_wins],
    ))  # fmt: skip
    if procedure.start is not StartRule.ANDAR:
        parts.append(_colour_part(procedure, rounds))
    if procedure.has_centre:
        ranks = list(Rank)
        parts.append((
            "centre-rank",
            [Message(N_("centre card {rank}"), rank=rank) for rank in ranks],
            [sum(1 for r in rounds if r.centre is not None and r.centre.rank is rank) for rank in ranks],
            [Fraction(1, 13)] * 13,
        ))  # fmt: skip
    level = ALPHA / len(parts)
    tests = tuple(
        CheckedTest(name, tuple(labels), tuple(observed), tuple(chances),
                    chi_square_test(observed, chances), level)
        for name, labels, observed, chances in parts
    )  # fmt: skip
    needed = rounds_needed(procedure, tuple(bands), bias, level)
    return ShuffleCheck(
        procedure, len(rounds), tests, bias, needed,
        cards_dealt_power(procedure, bands, bias, level, len(rounds)),
    )  # fmt: skip


def _colour_part(
    procedure: Procedure, rounds: Sequence[DealtRound]
) -> tuple[str, list[Localizable], list[int], list[Fraction]]:
    """Colour × winning row: the row dealt first is the colour's (black → Andar)."""
    distribution = outcome_distribution(procedure)
    centre = procedure.start is StartRule.CENTRE_COLOUR
    cells = [(c, w) for c in Colour for w in Row]
    labels: list[Localizable] = [
        Message(
            N_("centre {colour}, {row} won") if centre else N_("first card {colour}, {row} won"),
            colour=c,
            row=w,
        )
        for c, w in cells
    ]
    observed = [
        sum(1 for r in rounds if Row.of_colour(c) is r.first_row and r.winner is w)
        for c, w in cells
    ]
    chances = [
        sum(
            (
                p
                for (f, win, _), p in distribution.probabilities.items()
                if f is Row.of_colour(c) and win is w
            ),
            Fraction(0),
        )
        for c, w in cells
    ]
    return "colour-winner", labels, observed, chances


# -- power ------------------------------------------------------------------------------------


def cards_dealt_power(
    procedure: Procedure, bands: Sequence[CardsBet], bias: EarlyMatch, level: float, rounds: int
) -> float:
    """The chance that the cards-dealt χ² at *level* finds *bias* in *rounds* rounds.

    The cells pooled as the test pools them (see
    :func:`~andar_bahar.chance.significance.pearson_power`).
    """
    if rounds < 1:
        return 0.0
    p, q = _cell_chances(procedure, tuple(bands), bias)
    groups = pool_groups([rounds * x for x in p])
    if len(groups) < 2:
        return 0.0
    pg = [sum(p[i] for i in g) for g in groups]
    qg = [sum(q[i] for i in g) for g in groups]
    return pearson_power(rounds, pg, qg, level)


@lru_cache(maxsize=64)
def _cell_chances(
    procedure: Procedure, bands: tuple[CardsBet, ...], bias: EarlyMatch
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Each cards-dealt cell's chance with a fair deck and with *bias* (exact, then rounded
    once: the power of every history length is worked out from the same two)."""
    fair = outcome_distribution(procedure).cards_dealt
    biased = bias.cards_dealt(procedure)

    def chance(table: dict[int, Fraction], cell: CardsBet) -> float:
        return float(sum((p for k, p in table.items() if cell.low <= k <= cell.high), Fraction(0)))

    cells = count_cells(bands)
    return tuple(chance(fair, c) for c in cells), tuple(chance(biased, c) for c in cells)


@lru_cache(maxsize=64)
def rounds_needed(
    procedure: Procedure,
    bands: tuple[CardsBet, ...],
    bias: EarlyMatch,
    level: float = ALPHA / 3,
    power: float = POWER,
) -> int | None:
    """The fewest rounds in which the cards-dealt test at *level* finds *bias* with *power*
    (``None``: not within a million rounds)."""
    high = 16
    while cards_dealt_power(procedure, bands, bias, level, high) < power:
        high *= 2
        if high > 1_000_000:
            return None
    low = high // 2
    while low + 1 < high:
        middle = (low + high) // 2
        if cards_dealt_power(procedure, bands, bias, level, middle) >= power:
            high = middle
        else:
            low = middle
    return high
