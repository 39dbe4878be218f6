"""The shuffle check (andar_bahar.chance.shuffle_check) and its tails (chance.significance).

Sources: scipy's χ², gamma and binomial tails; an exact multinomial test written here by
listing every table of counts with itertools.product; the planted bias's distribution by
listing where the other matching cards lie; and decks shuffled by a seeded
random.Random, a matching card moved near the top in the biased ones.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from andar_bahar.chance.shuffle_check import (
    ALPHA,
    DealtRound,
    EarlyMatch,
    check_shuffle,
    count_cells,
)
from andar_bahar.chance.significance import (
    chi2_sf,
    chi_square_test,
    gamma_sf,
    multinomial_test,
    pooled,
)
from andar_bahar.engine.bets import CardsBet
from andar_bahar.engine.cards import FULL_DECK, Card
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import Procedure, find_procedure


@pytest.fixture(scope="module")
def stats():  # type: ignore[no-untyped-def]
    """scipy.stats, asked for by the tests that compare with it (importing it costs 1 s)."""
    return pytest.importorskip("scipy.stats")


BANDS = tuple(b.bet for b in find_paytable("trainer-default").bands)


@given(st.floats(0.0, 400.0), st.integers(1, 60))
@settings(max_examples=200, deadline=None)
def test_chi2_tail_is_scipys(stats, x: float, df: int) -> None:  # type: ignore[no-untyped-def]
    assert chi2_sf(x, df) == pytest.approx(float(stats.chi2.sf(x, df)), rel=1e-9, abs=1e-300)


@given(st.floats(0.05, 300.0), st.floats(0.0, 600.0))
@settings(max_examples=200, deadline=None)
def test_gamma_tail_is_scipys(stats, shape: float, x: float) -> None:  # type: ignore[no-untyped-def]
    assert gamma_sf(shape, x) == pytest.approx(
        float(stats.gamma.sf(x, shape)), rel=1e-8, abs=1e-290
    )


def listed_multinomial_p(observed: list[int], chances: list[Fraction]) -> Fraction:
    """Every table of counts with the same total, by itertools.product."""
    n = len(observed) and sum(observed)

    def chance(counts: tuple[int, ...]) -> Fraction:
        ways = math.factorial(n)
        for c in counts:
            ways //= math.factorial(c)
        return ways * math.prod(
            (p**c for p, c in zip(chances, counts, strict=True)), start=Fraction(1)
        )

    seen = chance(tuple(observed))
    tables = (t for t in itertools.product(range(n + 1), repeat=len(observed)) if sum(t) == n)
    return sum((q for t in tables if (q := chance(t)) <= seen), Fraction(0))


@given(st.lists(st.integers(1, 9), min_size=2, max_size=4), st.data())
@settings(max_examples=60, deadline=None)
def test_the_exact_multinomial_test_lists_every_table(
    weights: list[int], data: st.DataObject
) -> None:
    chances = [Fraction(w, sum(weights)) for w in weights]
    observed = data.draw(st.lists(st.integers(0, 5), min_size=len(weights), max_size=len(weights)))
    if sum(observed) == 0:
        observed[0] = 1
    assert multinomial_test(observed, chances) == listed_multinomial_p(observed, chances)


def test_two_cells_exactly_is_the_binomial_test(stats) -> None:  # type: ignore[no-untyped-def]
    for k in range(0, 13):
        p = multinomial_test([k, 12 - k], [Fraction(429, 833), Fraction(404, 833)])
        assert float(p) == pytest.approx(stats.binomtest(k, 12, 429 / 833).pvalue, rel=1e-9)


def test_the_test_fits_the_counts() -> None:
    half = [Fraction(1, 2), Fraction(1, 2)]
    assert chi_square_test([60, 40], half).method == "chi-square"
    assert chi_square_test([3, 2], half).method == "exact"
    many = [Fraction(1, 13)] * 13
    test = chi_square_test([2] * 13, many)  # 26 rounds, 2 expected a cell: too many tables
    assert test.method == "chi-square" and len(test.groups) == 4  # pooled: 3 cells a group
    assert pooled([2] * 13, [2.0] * 13)[0] == [6, 6, 6, 8]
    assert chi_square_test([1, 0, 0], [Fraction(1, 3)] * 3).method == "exact"


def test_cells_fill_the_gaps_between_bands() -> None:
    cells = count_cells([CardsBet(6, 10)])
    assert [(c.low, c.high) for c in cells] == [(1, 5), (6, 10), (11, 49)]
    assert len(count_cells(())) == 8  # no side bets: the trainer's default bands


@pytest.mark.parametrize("name", ["classic", "mangatha"])
def test_the_planted_bias_distribution_lists_every_deal(name: str) -> None:
    procedure = find_procedure(name)
    pile, matching = (52, 4) if name == "mangatha" else (51, 3)
    bias = EarlyMatch(Fraction(1), within=5)
    listed: dict[int, Fraction] = {}
    for j in range(1, 6):  # the planted card; the others among the other places, fairly
        places = [i for i in range(1, pile + 1) if i != j]
        sets = list(itertools.combinations(places, matching - 1))
        for others in sets:
            k = min(j, *others)
            listed[k] = listed.get(k, Fraction(0)) + Fraction(1, 5 * len(sets))
    assert {k: p for k, p in bias.cards_dealt(procedure).items() if p} == listed


# -- whole histories of real decks -----------------------------------------------------------


def deal(rng: random.Random, procedure: Procedure, bias: EarlyMatch | None = None) -> DealtRound:
    """A round from a shuffled deck (the centre card on top); with *bias*, now and then a
    matching card moved to one of the first places."""
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    centre, pile = deck[0], deck[1:]
    if bias is not None and rng.random() < bias.share:
        card = rng.choice([c for c in pile if c.rank is centre.rank])
        pile.remove(card)
        pile.insert(rng.randrange(bias.within), card)
    k = next(i for i, c in enumerate(pile) if c.rank is centre.rank) + 1
    first = procedure.first_row(centre=centre, first_card=pile[0])
    assert first is not None
    return DealtRound(centre, first, first if k % 2 else first.other, k)


HISTORIES = 300
"""Histories of each kind: a rate's standard error is at most 2.9 %."""


@pytest.mark.parametrize("name", ["classic", pytest.param("home", marks=pytest.mark.slow)])
def test_a_planted_bias_is_flagged_at_the_stated_power_and_fair_decks_at_the_stated_rate(
    name: str,
) -> None:
    # A dealer who puts a matching card among the first five in one round of five: the
    # check says how many rounds find that 8 times in 10. Histories that long, dealt with
    # the bias, are flagged at that rate (± 3 standard errors); fair ones at most at 5 %.
    procedure = find_procedure(name)
    bias = EarlyMatch(Fraction(1, 5))
    rng = random.Random(f"shuffle-{name}")
    needed = check_shuffle(procedure, [deal(rng, procedure)], bands=BANDS, bias=bias).needed
    assert needed is not None and 100 < needed < 250
    biased = [
        check_shuffle(procedure, [deal(rng, procedure, bias) for _ in range(needed)],
                      bands=BANDS, bias=bias)
        for _ in range(HISTORIES)
    ]  # fmt: skip
    power = sum(c.unusual for c in biased) / HISTORIES
    assert abs(power - 0.8) <= 3 * math.sqrt(0.8 * 0.2 / HISTORIES)
    fair = [
        check_shuffle(
            procedure, [deal(rng, procedure) for _ in range(needed)], bands=BANDS, bias=bias
        )
        for _ in range(HISTORIES)
    ]
    rate = sum(c.unusual for c in fair) / HISTORIES
    assert rate <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / HISTORIES)
    flagged = next(c for c in biased if c.unusual)
    assert str(flagged.verdict()).startswith("Unusual: the matching card comes early too often")


def test_the_verdict_in_words() -> None:
    procedure = find_procedure("classic")
    rng = random.Random(212)
    rounds = [deal(rng, procedure) for _ in range(212)]
    check = check_shuffle(procedure, rounds, bands=BANDS)
    assert [t.name for t in check.tests] == ["cards-dealt", "first-row-wins", "centre-rank"]
    assert str(check.verdict()) == "Nothing unusual in 212 rounds."
    assert str(check_shuffle(procedure, rounds[:1], bands=BANDS).verdict()) == (
        "Too few rounds to check: 1 round."
    )
    # Every round won by the row dealt first, with one card dealt: flagged.
    queen = Card.parse("Q♥")
    rigged = [DealtRound(queen, r.first_row, r.first_row, 1) for r in rounds]
    words = str(check_shuffle(procedure, rigged, bands=BANDS).verdict())
    assert words.startswith("Unusual: ") and "p = < 0.0001" in words
    home = check_shuffle(find_procedure("home"), rounds, bands=BANDS)
    assert "colour-winner" in [t.name for t in home.tests]
