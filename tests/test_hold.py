"""The hold report's maths (andar_bahar.chance.hold): a round's exact law, a night's tails.

Sources of the expected values:

- a brute-force enumeration written here independently of chance/odds.py: every set of
  positions of the matching cards in the pile (each equally likely), the first match at
  the smallest, the first card's colour from the pile's make-up; each outcome settled by
  the engine's own :func:`~andar_bahar.engine.settlement.settle` (its own rounding path);
- for the tails, a convolution of the rounds' laws in exact fractions;
- for the band, 10,000 nights dealt by the simulator's card kernel (real shuffled decks).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import andar_bahar.chance.hold_tails as hold_tails
from andar_bahar.chance.hold import HoldLaw, RoundLaw, known_centre, round_law
from andar_bahar.engine.bets import Bet, CardsBet, Wager
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.paytables import (
    Band,
    CountPays,
    MainKey,
    Odds,
    Paytable,
    Rounding,
    find_paytable,
)
from andar_bahar.engine.rules import (
    BetWindow,
    Procedure,
    Row,
    StartRule,
    TargetMode,
    find_procedure,
)
from andar_bahar.engine.settlement import settle

PROCEDURES = ["classic", "home", "first-card", "mangatha"]


# -- the brute force ---------------------------------------------------------------------


@cache
def brute_outcomes(
    start: StartRule, target: TargetMode, centre: Colour | None
) -> dict[tuple[Row, Row, int], Fraction]:
    """P(first row, winner, cards dealt), by listing where the matching cards lie."""
    result: dict[tuple[Row, Row, int], Fraction] = {}
    if target is TargetMode.CHOSEN_RANK:
        situations = [(Fraction(1), None, (2, 2, 24, 24))]
    else:
        colours = [centre] if centre is not None else [Colour.BLACK, Colour.RED]
        situations = [
            (Fraction(1, len(colours)), c, (1, 2, 24, 24) if c is Colour.BLACK else (2, 1, 24, 24))
            for c in colours
        ]
    for weight, colour, (mb, mr, ob, orr) in situations:
        n, m = mb + mr + ob + orr, mb + mr
        sets = math.comb(n, m)
        at = Counter(positions[0] + 1 for positions in itertools.combinations(range(n), m))
        for k, count in at.items():
            if k == 1:  # the first card matches: its colour is a matching card's
                firsts = [(Colour.BLACK, Fraction(mb, m)), (Colour.RED, Fraction(mr, m))]
            else:
                firsts = [(Colour.BLACK, Fraction(ob, n - m)), (Colour.RED, Fraction(orr, n - m))]
            for first_colour, p_colour in firsts:
                if start is StartRule.ANDAR:
                    first = Row.ANDAR
                elif start is StartRule.CENTRE_COLOUR:
                    assert colour is not None
                    first = Row.ANDAR if colour is Colour.BLACK else Row.BAHAR
                else:
                    first = Row.ANDAR if first_colour is Colour.BLACK else Row.BAHAR
                winner = first if k % 2 else (Row.BAHAR if first is Row.ANDAR else Row.ANDAR)
                key = (first, winner, k)
                result[key] = result.get(key, Fraction(0)) + weight * p_colour * count / sets
    return result


def brute_moments(
    procedure: Procedure, paytable: Paytable, wagers: list[Wager], centre: Colour | None
) -> tuple[Fraction, Fraction]:
    mean = second = Fraction(0)
    for (first, winner, k), p in brute_outcomes(procedure.start, procedure.target, centre).items():
        s = settle(winner=winner, cards_dealt=k, first_row=first, paytable=paytable, wagers=wagers)
        kept = Fraction(s.house_net)
        mean += p * kept
        second += p * kept * kept
    return mean, second - mean * mean


# -- random paytables and bets ---------------------------------------------------------------

odds = st.integers(1, 2400).map(lambda n: Odds.parse(f"{n}/20"))


@st.composite
def paytables(draw: st.DrawFn) -> Paytable:
    cuts = sorted(draw(st.sets(st.integers(2, 49), max_size=6)))
    bands = [
        Band(CardsBet(low, high - 1), draw(odds))
        for low, high in itertools.pairwise([1, *cuts, 50])
        if draw(st.booleans())
    ]
    by_count = ()
    if draw(st.booleans()):
        by_count = (CountPays(CardsBet(1, draw(st.integers(1, 3))), (draw(odds), None)),)
    chip = draw(st.sampled_from([Decimal(1), Decimal(5), Decimal("0.5"), Decimal("0.01")]))
    return Paytable(
        name="club",
        main=(draw(odds), draw(odds)),
        keyed_by=draw(st.sampled_from(list(MainKey))),
        bands=tuple(bands),
        main_by_count=by_count,
        chip=chip,
        rounding=draw(st.sampled_from(list(Rounding))),
    )


@st.composite
def bet_sets(draw: st.DrawFn, paytable: Paytable) -> list[Wager]:
    count = draw(st.integers(1, 6))
    return [
        Wager(
            draw(st.sampled_from(["asha", "ravi", "nino"])),
            draw(st.sampled_from(paytable.bets)),
            paytable.chip * draw(st.integers(1, 400)),
        )
        for _ in range(count)
    ]


@st.composite
def rounds(draw: st.DrawFn) -> tuple[Procedure, Paytable, list[Wager], Colour | None]:
    procedure = find_procedure(draw(st.sampled_from(PROCEDURES)))
    paytable = draw(paytables())
    centre = draw(st.sampled_from([None, *Colour])) if procedure.has_centre else None
    return procedure, paytable, draw(bet_sets(paytable)), centre


@given(rounds())
@settings(max_examples=60, deadline=None)
def test_a_rounds_mean_and_variance_are_the_brute_force_enumerations(
    case: tuple[Procedure, Paytable, list[Wager], Colour | None],
) -> None:
    # Property: E and Var of the house's result equal those of the independent
    # enumeration above, each outcome settled by the engine (bets of one round together).
    procedure, paytable, wagers, centre = case
    law = round_law(procedure, paytable, wagers, centre=centre)
    assert (law.mean, law.variance) == brute_moments(procedure, paytable, wagers, centre)
    assert sum(law.weights) == law.denominator


def test_bets_of_one_round_are_correlated_not_independent() -> None:
    # Andar and Bahar of 100 each at 1 to 1: the house's result is always 0 (one wins,
    # one loses), though each bet alone varies: the round's variance is 0, not the sum.
    pt = find_paytable("even-money")
    bets = [
        Wager("a", Bet.parse("andar"), Decimal(100)),
        Wager("b", Bet.parse("bahar"), Decimal(100)),
    ]
    law = round_law(find_procedure("classic"), pt, bets)
    assert law.values == (0,) and law.variance == 0
    alone = round_law(find_procedure("classic"), pt, bets[:1]).variance
    assert alone > 0


def test_rounding_of_each_win_is_counted() -> None:
    # wizard, classic, 5 chips on Andar: wins 4.5 paid 4 (seed 001's table, rounded down):
    # the house keeps 5 × P(Bahar) − 4 × P(Andar) = (5·404 − 4·429)/833.
    law = round_law(find_procedure("classic"), find_paytable("wizard"),
                    [Wager("a", Bet.parse("andar"), Decimal(5))])  # fmt: skip
    assert law.mean == Fraction(5 * 404 - 4 * 429, 833)


def test_the_centre_is_known_only_to_bets_placed_after_it() -> None:
    before = find_procedure("home").replace(window=BetWindow.BEFORE_CENTRE)
    assert known_centre(before, Colour.RED, bet_after_centre=True) is None  # none can be
    first = find_procedure("first-card")
    assert known_centre(first, Colour.RED, bet_after_centre=True) is Colour.RED
    assert known_centre(first, Colour.RED, bet_after_centre=False) is None
    # Given a red centre, first-card-colour deals 24 black of 50 non-matching … the odds move.
    bets = [Wager("a", Bet.parse("andar"), Decimal(100))]
    pt = find_paytable("trainer-default")
    assert round_law(first, pt, bets, centre=Colour.RED).mean != round_law(first, pt, bets).mean


# -- the tails ------------------------------------------------------------------------------


def fraction_convolution(laws: list[RoundLaw]) -> dict[int, Fraction]:
    total = {0: Fraction(1)}
    for law in laws:
        new: dict[int, Fraction] = {}
        for t, p in total.items():
            for v, w in zip(law.values, law.weights, strict=True):
                new[t + v] = new.get(t + v, Fraction(0)) + p * Fraction(w, law.denominator)
        total = new
    return total


def night_of(rng: random.Random, n: int, side: str | None = None) -> list[RoundLaw]:
    pt, classic = find_paytable("trainer-default"), find_procedure("classic")
    laws = []
    for _ in range(n):
        bets = [
            Wager("a", Bet.parse(rng.choice(["andar", "bahar"])), Decimal(rng.choice([10, 20, 50])))
        ]
        if side is not None:
            bets.append(Wager("b", Bet.parse(side), Decimal(10)))
        laws.append(round_law(classic, pt, bets))
    return laws


def test_the_exact_tails_and_band_are_those_of_the_fraction_convolution() -> None:
    laws = night_of(random.Random(4), 4, side="cards:41-49")
    law = HoldLaw.of(laws)
    exact = fraction_convolution(laws)
    tails = hold_tails.Tails.of(law.laws, law.variance)
    assert tails.method == "exact"
    values = sorted(exact)
    for t in values[:: max(1, len(values) // 40)]:
        below = sum((p for v, p in exact.items() if v <= t), Fraction(0))
        above = sum((p for v, p in exact.items() if v >= t), Fraction(0))
        assert tails.at_most(t) == pytest.approx(float(below), abs=1e-12)
        assert tails.at_least(t) == pytest.approx(float(above), abs=1e-12)
    low, high = tails.band(Fraction(1, 40))
    cumulative = Fraction(0)
    first_low = first_high = None
    for v in values:
        cumulative += exact[v]
        if first_low is None and cumulative >= Fraction(1, 40):
            first_low = v
        if first_high is None and cumulative >= Fraction(39, 40):
            first_high = v
    assert (low, high) == (first_low, first_high)


@pytest.mark.parametrize(("rounds", "side"), [(40, None), (200, "cards:1-5"), (120, "cards:41-49")])
def test_the_saddlepoint_tails_agree_with_the_exact_law(rounds: int, side: str | None) -> None:
    # The same night both ways; at the band's edges (2.5 % each side) and at 0.5 %,
    # the saddlepoint's tail is within 12 % of the exact one (relative), and its band
    # edges within 2 % of the band's width.
    law = HoldLaw.of(night_of(random.Random(rounds), rounds, side))
    saved = hold_tails.EXACT_DIGITS
    try:
        hold_tails.EXACT_DIGITS = 10**8
        exact = hold_tails.Tails.of(law.laws, law.variance)
        hold_tails.EXACT_DIGITS = 0
        saddle = hold_tails.Tails.of(law.laws, law.variance)
    finally:
        hold_tails.EXACT_DIGITS = saved
    assert (exact.method, saddle.method) == ("exact", "saddlepoint")
    for tail in (Fraction(1, 40), Fraction(1, 200)):
        low, high = exact.band(tail)
        assert saddle.at_most(low) == pytest.approx(exact.at_most(low), rel=0.12)
        assert saddle.at_least(high) == pytest.approx(exact.at_least(high), rel=0.12)
    (el, eh), (sl, sh) = exact.band(Fraction(1, 40)), saddle.band(Fraction(1, 40))
    assert abs(sl - el) <= 0.02 * (eh - el) and abs(sh - eh) <= 0.02 * (eh - el)


def test_a_night_that_cannot_vary_is_judged_without_a_band_of_chance() -> None:
    law = HoldLaw.of([RoundLaw((0,), (1,), 1)] * 3)
    judged = law.judge(Decimal(0))
    assert (judged.z, judged.p_value, judged.low, judged.high) == (None, 1.0, 0, 0)
    assert law.judge(Decimal(5)).verdict == "high"


def test_judgement_says_where_a_result_lies() -> None:
    law = HoldLaw.of(night_of(random.Random(1), 100))
    middle = law.judge(Decimal(round(float(law.mean))))
    assert middle.verdict == "ordinary" and middle.p_value > 0.9
    far = law.judge(middle.high + 1000)
    assert far.verdict == "high" and far.p_value < 0.05 and far.z is not None and far.z > 2


def a_club_night(rng: random.Random, rounds: int) -> list[list[Wager]]:
    """A night's bets: 1–4 players a round, main bets of 10–200, now and then a side bet."""
    bands = [str(b.bet) for b in find_paytable("trainer-default").bands]
    night = []
    for _ in range(rounds):
        bets = []
        for player in rng.sample(["asha", "ravi", "nino", "dato"], rng.randint(1, 4)):
            bets.append(Wager(player, Bet.parse(rng.choice(["andar", "bahar"])),
                              Decimal(rng.choice([10, 20, 25, 50, 100, 200]))))  # fmt: skip
            if rng.random() < 0.2:
                bets.append(
                    Wager(player, Bet.parse(rng.choice(bands)), Decimal(rng.choice([5, 10])))
                )
        night.append(bets)
    return night


@pytest.mark.parametrize(("rounds", "method"), [(150, "saddlepoint"), (12, "exact")])
def test_the_band_holds_95_in_100_fair_nights(rounds: int, method: str) -> None:
    # 10,000 nights of the same bets, each round dealt from a real shuffled deck by the
    # simulator's card kernel (seeded), each outcome settled by the engine: the report's
    # band holds the night's result in 95 % ± 1 % of them (the standard error is 0.22 %).
    # A short night's exact band holds at least 95 % (its law is lumpy: a band cannot
    # cut a lump in two).
    np = pytest.importorskip("numpy")
    from andar_bahar.chance.simulation import decode, outcome_codes

    classic, pt = find_procedure("classic"), find_paytable("trainer-default")
    night = a_club_night(random.Random(rounds), rounds)
    judged = HoldLaw.of([round_law(classic, pt, bets) for bets in night]).judge(Decimal(0))
    assert judged.method == method
    nights = 10_000
    codes = outcome_codes(classic, nights * rounds, seed=34).reshape(nights, rounds)
    kept = np.zeros((rounds, 200))
    for code in np.unique(codes):
        first, winner, k = decode(int(code))
        for r, bets in enumerate(night):
            s = settle(winner=winner, cards_dealt=k, first_row=first, paytable=pt, wagers=bets)
            kept[r, code] = float(s.house_net)
    totals = kept[np.arange(rounds), codes].sum(axis=1)
    inside = float(np.mean((totals >= float(judged.low)) & (totals <= float(judged.high))))
    if method == "saddlepoint":
        assert 0.94 <= inside <= 0.96
    else:
        assert inside >= 0.95 - 3 * 0.0022
