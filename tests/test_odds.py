"""Exact odds (SPEC §2–§7; issue 3's acceptance list).

Every expected value here is derived independently of :mod:`andar_bahar.chance.odds`:
by ``math.comb`` over the positions of the matching cards, by a sequential
product of "this card misses" probabilities, by conditioning on the first
dealt card, by brute-force enumeration of small piles, or from a published
figure (Wizard of Odds' Andar Bahar page). Each derivation is written out
beside the assertion that uses it.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from andar_bahar.chance.odds import (
    OddsReport,
    _deal,
    _Pile,
    bet_odds,
    first_match_distribution,
    odds_report,
    outcome_distribution,
    percent_text,
)
from andar_bahar.engine.bets import MAX_CARDS_DEALT, CardsBet, MainBet
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.paytables import PAYTABLES, Band, MainKey, Odds, Paytable, find_paytable
from andar_bahar.engine.rules import (
    PROCEDURES,
    BetWindow,
    Procedure,
    Row,
    StartRule,
    TargetMode,
    find_procedure,
)

A, B = Row.ANDAR, Row.BAHAR
CLASSIC = find_procedure("classic")
HOME = find_procedure("home")
FIRST_CARD = find_procedure("first-card")
MANGATHA = find_procedure("mangatha")

# The Andar probability of the casino game, derived in test 1 below and reused.
P_ANDAR_CLASSIC = Fraction(429, 833)
P_BAHAR_CLASSIC = Fraction(404, 833)  # 1 − 429/833


# -- independent references ----------------------------------------------------------


def first_match_by_comb(cards: int, matching: int) -> dict[int, Fraction]:
    """P(first match at k): the k − 1 cards before it miss, the other matching − 1 lie
    among the cards − k after it, out of C(cards, matching) equally likely placements."""
    return {
        k: Fraction(comb(cards - k, matching - 1), comb(cards, matching))
        for k in range(1, cards - matching + 2)
    }


def first_match_by_product(cards: int, matching: int) -> dict[int, Fraction]:
    """The same, card by card: miss, miss, …, then hit (no binomials involved)."""
    dist: dict[int, Fraction] = {}
    none_yet = Fraction(1)
    for k in range(1, cards - matching + 2):
        left = cards - k + 1
        dist[k] = none_yet * Fraction(matching, left)
        none_yet *= Fraction(left - matching, left)
    return dist


def reference_outcomes(
    procedure: Procedure, centre: Colour | None = None
) -> dict[tuple[Row, Row, int], Fraction]:
    """The exact (first_row, winner, cards_dealt) distribution, written from SPEC §3–§5.

    The deck: every rank has 2 black and 2 red cards. With a centre card, its rank is
    the target and it takes one card of its colour away: black centre leaves 1 black and
    2 red matches, red centre 2 black and 1 red, and 24 + 24 non-matching cards either
    way (51 cards). With a chosen rank, 2 + 2 matches and 24 + 24 others (52 cards).
    The row that gets the k-th card is the first row for odd k, the other for even k.
    """
    if procedure.target is TargetMode.CHOSEN_RANK:
        piles = [(Fraction(1), None, (2, 2, 24, 24))]
    else:
        colours = [centre] if centre is not None else [Colour.BLACK, Colour.RED]
        piles = [
            (
                Fraction(1, len(colours)),
                colour,
                (1, 2, 24, 24) if colour is Colour.BLACK else (2, 1, 24, 24),
            )
            for colour in colours
        ]
    result: dict[tuple[Row, Row, int], Fraction] = {}

    def add(first: Row, k: int, p: Fraction) -> None:
        winner = first if k % 2 == 1 else first.other
        result[(first, winner, k)] = result.get((first, winner, k), Fraction(0)) + p

    for weight, colour, (mb, mr, ob, orr) in piles:
        n, m = mb + mr + ob + orr, mb + mr
        if procedure.start is StartRule.FIRST_CARD_COLOUR:
            # Condition on the first dealt card: its colour gives its row; if it is not
            # a match, the match is the first one among the other n − 1 cards.
            rest = first_match_by_product(n - 1, m)
            for first, matching, other in ((A, mb, ob), (B, mr, orr)):
                add(first, 1, weight * Fraction(matching, n))
                for j, p in rest.items():
                    add(first, 1 + j, weight * Fraction(other, n) * p)
        else:
            # andar: always Andar; centre-colour: black → Andar, red → Bahar (SPEC §5)
            andar_first = procedure.start is StartRule.ANDAR or colour is Colour.BLACK
            first = A if andar_first else B
            for k, p in first_match_by_product(n, m).items():
                add(first, k, weight * p)
    return result


def band_probability(low: int, high: int, cards: int, matching: int) -> Fraction:
    """P(low ≤ cards dealt ≤ high) = P(no match in the first low − 1) − P(none in the
    first high): "no match in the first j" places all matches among the last cards − j."""
    return Fraction(
        comb(cards - low + 1, matching) - comb(cards - high, matching), comb(cards, matching)
    )


def deck_model(procedure: Procedure) -> tuple[int, int]:
    """(cards dealt from, matching cards): 51 and 3 with a centre card, else 52 and 4."""
    return (51, 3) if procedure.target is TargetMode.CENTRE_CARD else (52, 4)


def valid_procedures() -> list[Procedure]:
    """Every start × target × window the rules accept (centre-colour needs a centre)."""
    found = []
    for start, target, window in itertools.product(StartRule, TargetMode, BetWindow):
        if start is StartRule.CENTRE_COLOUR and target is TargetMode.CHOSEN_RANK:
            continue
        found.append(Procedure("h", start=start, target=target, window=window))
    return found


def bets_of(report: OddsReport, given: Colour | None = None) -> dict[str, object]:
    return {str(b.bet): b for b in report.bets if b.given is given}


PRESET_PAIRS = [(p, t) for p in PROCEDURES for t in PAYTABLES]


# -- 1. the casino game: andar start, centre card --------------------------------------


def test_classic_andar_probability_is_429_over_833() -> None:
    # Derivation: the first of the 3 matches among 51 cards is at k with probability
    # C(51 − k, 2) / C(51, 3); with the andar start Andar gets the odd positions.
    derived = sum(
        (Fraction(comb(51 - k, 2), comb(51, 3)) for k in range(1, 50) if k % 2 == 1),
        Fraction(0),
    )
    assert derived == P_ANDAR_CLASSIC  # 10725/20825 reduced
    dist = outcome_distribution(CLASSIC)
    assert dist.probability_of(A) == derived
    assert dist.probability_of(B) == 1 - derived == P_BAHAR_CLASSIC


def test_classic_mean_cards_dealt_is_13() -> None:
    # The mean position of the first of m marked cards among n is (n + 1)/(m + 1):
    # (51 + 1)/(3 + 1) = 13; also summed directly from the comb distribution.
    direct = sum((k * p for k, p in first_match_by_comb(51, 3).items()), Fraction(0))
    assert direct == Fraction(51 + 1, 3 + 1) == 13
    assert outcome_distribution(CLASSIC).mean_cards_dealt == 13


def test_classic_cards_dealt_distribution_is_the_comb_formula() -> None:
    # P(k) = C(51 − k, 2)/C(51, 3) for k = 1 … 49 (49 = 48 misses + the match, bets.py).
    expected = first_match_by_comb(51, 3)
    assert list(expected) == list(range(1, MAX_CARDS_DEALT + 1))
    assert outcome_distribution(CLASSIC).cards_dealt == expected
    assert expected[1] == Fraction(3, 51)  # the first card is one of the 3 matches
    assert expected[49] == Fraction(1, comb(51, 3))  # all 48 misses come first


def test_classic_parity_rule_for_dealers() -> None:
    # SPEC §4: with the andar start an odd count means Andar won, an even count Bahar.
    for (first, winner, k), p in outcome_distribution(CLASSIC).probabilities.items():
        assert p > 0
        assert first is A
        assert winner is (A if k % 2 else B)


# -- 2. house edge of Andar at 0.9 to 1 --------------------------------------------------


@pytest.mark.parametrize("paytable", ["wizard", "trainer-default"])
def test_andar_at_0_9_to_1_has_house_edge_179_over_8330(paytable: str) -> None:
    # A winning unit returns 1 + 0.9 = 1.9: edge = 1 − 429/833 × 19/10 = 179/8330.
    edge = 1 - P_ANDAR_CLASSIC * Fraction(19, 10)
    assert edge == Fraction(179, 8330)
    andar = bet_odds(MainBet(A), find_paytable(paytable), outcome_distribution(CLASSIC))
    assert andar.probability == P_ANDAR_CLASSIC
    assert andar.house_edge == edge
    assert andar.expected_return == -edge
    assert andar.pays == "0.9 to 1"


def test_published_house_edges_of_wizard_of_odds() -> None:
    # Wizard of Odds, Andar Bahar: Andar 2.15 %, Bahar 3.00 % (0.9 to 1 and 1 to 1).
    # Bahar's edge: 1 − 404/833 × 2 = 25/833.
    report = odds_report(CLASSIC, find_paytable("wizard"))
    overall = bets_of(report)
    assert overall["bahar"].house_edge == 1 - 2 * P_BAHAR_CLASSIC == Fraction(25, 833)
    assert percent_text(overall["andar"].house_edge, None) == "2.15 %"
    assert percent_text(overall["bahar"].house_edge, None) == "3.00 %"


# -- 3. side-bet bands and the cards-dealt distribution ------------------------------------


@pytest.mark.parametrize("paytable", list(PAYTABLES))
def test_preset_bands_cover_1_to_49_once(paytable: str) -> None:
    # SPEC §7: the side bets run 1–5, 6–10, … 41+ — every count 1…49 in exactly one band.
    covered = [
        k for band in PAYTABLES[paytable].bands for k in range(band.bet.low, band.bet.high + 1)
    ]
    assert sorted(covered) == list(range(1, MAX_CARDS_DEALT + 1))


@pytest.mark.parametrize(("procedure", "paytable"), PRESET_PAIRS)
def test_band_probabilities_sum_to_one_and_match_the_distribution(
    procedure: str, paytable: str
) -> None:
    rules, table = PROCEDURES[procedure], PAYTABLES[paytable]
    report = odds_report(rules, table)
    dealt = report.distribution.cards_dealt
    cards, matching = deck_model(rules)
    overall = bets_of(report)
    total = Fraction(0)
    for band in table.bands:
        odds = overall[str(band.bet)]
        # the sum of the cards_dealt distribution over the band …
        assert odds.probability == sum(
            (p for k, p in dealt.items() if band.bet.low <= k <= band.bet.high), Fraction(0)
        )
        # … and the closed form from band_probability (the start rule cannot matter:
        # which row gets a card does not change where the first match lies).
        assert odds.probability == band_probability(band.bet.low, band.bet.high, cards, matching)
        total += odds.probability
    assert total == 1


@pytest.mark.parametrize("procedure", valid_procedures(), ids=lambda p: f"{p.start}-{p.target}")
def test_cards_dealt_distribution_sums_to_one_for_every_procedure(procedure: Procedure) -> None:
    cards, matching = deck_model(procedure)
    colours: list[Colour | None] = [None]
    if procedure.has_centre:
        colours += [Colour.BLACK, Colour.RED]
    for colour in colours:
        dist = outcome_distribution(procedure, centre=colour)
        assert sum(dist.cards_dealt.values()) == 1
        assert sum(dist.probabilities.values()) == 1
        assert set(dist.cards_dealt) <= set(range(1, MAX_CARDS_DEALT + 1))
        # cards dealt never depends on rows, only on where the first match lies
        assert dist.cards_dealt == first_match_by_comb(cards, matching)


# -- 4. centre-colour (home): before and after the centre card -------------------------------


def test_home_before_centre_is_an_even_game() -> None:
    # Before the centre is seen its colour is black or red with probability 1/2 each, and
    # the two cases are mirror images (black: Andar first, 429/833; red: Bahar first):
    # P(Andar) = (429/833 + 404/833)/2 = 1/2.
    mixed = (P_ANDAR_CLASSIC + P_BAHAR_CLASSIC) / 2
    assert mixed == Fraction(1, 2)
    report = odds_report(HOME, find_paytable("wizard"), window=BetWindow.BEFORE_CENTRE)
    assert report.procedure.window is BetWindow.BEFORE_CENTRE
    assert all(b.given is None for b in report.bets)
    overall = bets_of(report)
    assert overall["andar"].probability == Fraction(1, 2)
    assert overall["bahar"].probability == Fraction(1, 2)


def test_home_after_centre_reports_the_odds_given_the_centre_colour() -> None:
    # Black centre → Andar first: exactly the classic game, P(Andar) = 429/833.
    # Red centre → Bahar first: the mirror image, P(Andar) = 404/833.
    report = odds_report(HOME, find_paytable("wizard"), window=BetWindow.AFTER_CENTRE)
    black, red = bets_of(report, Colour.BLACK), bets_of(report, Colour.RED)
    assert black["andar"].probability == P_ANDAR_CLASSIC
    assert black["bahar"].probability == P_BAHAR_CLASSIC
    assert red["andar"].probability == P_BAHAR_CLASSIC
    assert red["bahar"].probability == P_ANDAR_CLASSIC
    assert black["andar"].given_text == "centre:black"
    assert red["bahar"].given_text == "centre:red"
    # and overall it is still even
    assert bets_of(report)["andar"].probability == Fraction(1, 2)


@pytest.mark.parametrize("colour", list(Colour))
def test_home_distribution_given_the_centre_matches_the_reference(colour: Colour) -> None:
    assert outcome_distribution(HOME, centre=colour).probabilities == reference_outcomes(
        HOME, colour
    )
    assert outcome_distribution(HOME).probabilities == reference_outcomes(HOME)


# -- 5. first-card-colour and chosen-rank are exact -------------------------------------------


def test_first_match_comb_and_product_forms_agree() -> None:
    # The two references must agree with each other before they are used as checks.
    for cards, matching in ((51, 3), (52, 4), (50, 3), (51, 4)):
        assert first_match_by_comb(cards, matching) == first_match_by_product(cards, matching)


@pytest.mark.parametrize("procedure", valid_procedures(), ids=lambda p: f"{p.start}-{p.target}")
def test_every_procedure_matches_the_reference_distribution(procedure: Procedure) -> None:
    assert outcome_distribution(procedure).probabilities == reference_outcomes(procedure)


def test_first_card_colour_is_even_overall() -> None:
    # Swapping the colours of the whole deck maps every deal to one with the rows swapped
    # and has the same probability, so P(Andar) = P(Bahar) = 1/2.
    for procedure in (FIRST_CARD, MANGATHA.replace(start=StartRule.FIRST_CARD_COLOUR)):
        dist = outcome_distribution(procedure)
        assert dist.probability_of(A) == Fraction(1, 2)
        assert dist.probability_of(B) == Fraction(1, 2)


@pytest.mark.parametrize(
    ("colour", "andar"), [(Colour.BLACK, Fraction(25, 51)), (Colour.RED, Fraction(26, 51))]
)
def test_first_card_colour_given_the_centre(colour: Colour, andar: Fraction) -> None:
    # Condition on the first of the 51 cards (black centre: 1 black match, 2 red matches,
    # 24 other black, 24 other red). A black match (1/51) wins Andar at once. Another black
    # card (24/51) goes to Andar, which then wins iff the match is an even number of cards
    # further on (probability q); another red card (24/51) goes to Bahar, and Andar wins
    # iff that number is odd (1 − q). So P(Andar) = 1/51 + 24/51 × (q + 1 − q) = 25/51.
    # With a red centre there are 2 black matches: 2/51 + 24/51 = 26/51.
    dist = outcome_distribution(FIRST_CARD, centre=colour)
    assert dist.probability_of(A) == andar
    assert dist.probability_of(B) == 1 - andar
    assert dist.probabilities == reference_outcomes(FIRST_CARD, colour)


def test_first_card_colour_first_row_is_the_first_cards_colour() -> None:
    # Half the cards left after any centre card are black (25 of 51 or 26 of 51, averaging
    # 51/102), so P(Andar dealt first) = 1/2 overall.
    dist = outcome_distribution(FIRST_CARD)
    first_andar = sum(
        (p for (first, _, _), p in dist.probabilities.items() if first is A), Fraction(0)
    )
    assert first_andar == Fraction(1, 2)


def test_chosen_rank_cards_dealt_and_mean() -> None:
    # 52 cards, 4 match: P(first match at k) = C(52 − k, 3)/C(52, 4); mean (52 + 1)/(4 + 1).
    expected = {k: Fraction(comb(52 - k, 3), comb(52, 4)) for k in range(1, 50)}
    dist = outcome_distribution(MANGATHA)
    assert dist.cards_dealt == expected
    assert sum(expected.values()) == 1
    assert sum((k * p for k, p in expected.items()), Fraction(0)) == Fraction(53, 5)
    assert dist.mean_cards_dealt == Fraction(53, 5)


def test_chosen_rank_with_andar_start_sums_the_odd_positions() -> None:
    andar = sum(
        (Fraction(comb(52 - k, 3), comb(52, 4)) for k in range(1, 50) if k % 2 == 1), Fraction(0)
    )
    dist = outcome_distribution(MANGATHA)
    assert dist.probability_of(A) == andar
    assert dist.probability_of(B) == 1 - andar
    # The first card already matches with probability 4/52, so Andar is favoured here too.
    assert andar > Fraction(1, 2)


def test_chosen_rank_has_no_centre_to_condition_on() -> None:
    with pytest.raises(ValueError, match="no centre"):
        outcome_distribution(MANGATHA, centre=Colour.BLACK)
    # and the report lists only unconditional odds
    assert all(b.given is None for b in odds_report(MANGATHA, find_paytable("wizard")).bets)


# Brute force over small piles: every distinct arrangement of a multiset of cards is
# equally likely, so enumerate them and deal each one by the rules of SPEC §4–§5.
_small_piles = st.tuples(
    st.integers(0, 2), st.integers(0, 2), st.integers(0, 3), st.integers(0, 3)
).filter(lambda pile: pile[0] + pile[1] >= 1)


def _brute_force(
    pile: tuple[int, int, int, int], start: StartRule, fixed: Row | None
) -> dict[tuple[Row, Row, int], Fraction]:
    mb, mr, ob, orr = pile
    cards = ["MB"] * mb + ["MR"] * mr + ["OB"] * ob + ["OR"] * orr
    arrangements = set(itertools.permutations(cards))
    counts: dict[tuple[Row, Row, int], int] = {}
    for order in arrangements:
        first = (
            fixed if start is not StartRule.FIRST_CARD_COLOUR else (A if order[0][1] == "B" else B)
        )
        assert first is not None
        k = next(i for i, card in enumerate(order, start=1) if card[0] == "M")
        winner = first if k % 2 == 1 else first.other
        counts[(first, winner, k)] = counts.get((first, winner, k), 0) + 1
    return {outcome: Fraction(n, len(arrangements)) for outcome, n in counts.items()}


@settings(max_examples=60, deadline=None)
@given(pile=_small_piles, start=st.sampled_from(list(StartRule)), fixed=st.sampled_from([A, B]))
def test_dealing_small_piles_matches_brute_force(
    pile: tuple[int, int, int, int], start: StartRule, fixed: Row
) -> None:
    # _deal is the private worker behind outcome_distribution; the public API is fixed to
    # 52 cards, so the exhaustive check runs on small piles here.
    row = None if start is StartRule.FIRST_CARD_COLOUR else fixed
    assert _deal(_Pile(*pile), start, row) == _brute_force(pile, start, row)


@settings(max_examples=40, deadline=None)
@given(cards=st.integers(1, 9), data=st.data())
def test_first_match_distribution_matches_enumeration(cards: int, data: st.DataObject) -> None:
    matching = data.draw(st.integers(1, cards))
    # Enumerate every set of positions of the matching cards (all equally likely).
    placements = list(itertools.combinations(range(1, cards + 1), matching))
    expected: dict[int, Fraction] = {}
    for positions in placements:
        expected[positions[0]] = expected.get(positions[0], Fraction(0)) + Fraction(
            1, len(placements)
        )
    dist = first_match_distribution(cards, matching)
    assert {k: p for k, p in dist.items() if p} == expected
    # mean position of the first of m marks among n: (n + 1)/(m + 1)
    assert sum((k * p for k, p in dist.items()), Fraction(0)) == Fraction(cards + 1, matching + 1)


# -- 6. player-advantage flags and the JSON contract --------------------------------------------


def test_classic_wizard_favours_no_bet() -> None:
    report = odds_report(CLASSIC, find_paytable("wizard"))
    assert report.warnings == ()
    assert report.warning_messages() == []
    assert not any(b.player_advantage for b in report.bets)
    assert all(b.expected_return < 0 for b in report.bets)


def test_classic_even_money_andar_favours_the_player() -> None:
    # Andar at 1 to 1: expected return 2 × 429/833 − 1 = 25/833 > 0 since 429/833 > 1/2.
    report = odds_report(CLASSIC, find_paytable("even-money"))
    overall = bets_of(report)
    assert overall["andar"].expected_return == 2 * P_ANDAR_CLASSIC - 1 == Fraction(25, 833)
    assert overall["andar"].player_advantage
    assert not overall["bahar"].player_advantage  # 2 × 404/833 − 1 = −25/833
    assert overall["bahar"].expected_return == Fraction(-25, 833)
    assert overall["andar"] in report.warnings
    assert overall["bahar"] not in report.warnings
    messages = [str(m) for m in report.warning_messages()]
    assert len(messages) == len(report.warnings)
    assert any("andar" in m.lower() and "even-money" in m for m in messages)


def test_classic_andar_at_0_95_favours_the_player() -> None:
    # 429/833 × 1.95 − 1 = 16731/16660 − 1 = 71/16660 > 0: the 'andar-0.95' operators'
    # table gives the player the edge on Andar under the casino procedure.
    andar = bets_of(odds_report(CLASSIC, find_paytable("andar-0.95")))["andar"]
    assert andar.expected_return == P_ANDAR_CLASSIC * Fraction(39, 20) - 1 == Fraction(71, 16660)
    assert andar.player_advantage


def test_home_wizard_after_centre_bahar_given_red_favours_the_player() -> None:
    # Red centre → Bahar first → Bahar wins with 429/833 and pays 1 to 1:
    # 2 × 429/833 − 1 = 25/833 > 0.
    report = odds_report(HOME, find_paytable("wizard"), window=BetWindow.AFTER_CENTRE)
    bahar_red = bets_of(report, Colour.RED)["bahar"]
    assert bahar_red.expected_return == Fraction(25, 833)
    assert bahar_red.player_advantage
    assert bahar_red in report.warnings
    # Andar given black pays only 0.9 to 1: −179/8330, no advantage
    assert bets_of(report, Colour.BLACK)["andar"].expected_return == Fraction(-179, 8330)
    assert not bets_of(report)["bahar"].player_advantage  # overall 1/2 × 2 − 1 = 0


def test_first_card_wizard_bahar_given_black_favours_the_player() -> None:
    # From the first-card derivation above: P(Bahar | black centre) = 26/51, at 1 to 1
    # 2 × 26/51 − 1 = 1/51 > 0.
    report = odds_report(FIRST_CARD, find_paytable("wizard"))
    bahar_black = bets_of(report, Colour.BLACK)["bahar"]
    assert bahar_black.expected_return == Fraction(1, 51)
    assert bahar_black in report.warnings


def test_trainer_default_side_bets_favour_the_player() -> None:
    # SPEC §7 as written: 'trainer-default' pays its bands "to 1" (1–5: 3 to 1), where
    # 'wizard' pays 3.5 *for* 1 (2.5 to 1). With P(1–5) = 1 − C(46, 3)/C(51, 3) = 1129/4165
    # (band_probability), 1–5 returns 4 × 1129/4165 − 1 = 351/4165 > 0; likewise 6–10 at
    # 4 to 1, 11–15 at 5 to 1 and 16–25 at 4 to 1. 26–30 at 15 to 1 does not.
    report = odds_report(CLASSIC, find_paytable("trainer-default"))
    overall = bets_of(report)
    favoured = []
    for band in PAYTABLES["trainer-default"].bands:
        p = band_probability(band.bet.low, band.bet.high, 51, 3)
        expected = p * (1 + band.odds.to_one) - 1
        assert overall[str(band.bet)].expected_return == expected
        if expected > 0:
            favoured.append(str(band.bet))
    assert band_probability(1, 5, 51, 3) == Fraction(1129, 4165)
    assert overall["cards:1-5"].expected_return == Fraction(351, 4165)
    assert favoured == ["cards:1-5", "cards:6-10", "cards:11-15", "cards:16-25"]
    assert [str(b.bet) for b in report.warnings] == favoured


def test_first_row_keyed_main_bets() -> None:
    # SPEC §7: "the row dealt first pays 0.9 to 1, the other 1 to 1". Under centre-colour:
    # black centre → Andar first: Andar returns 429/833 × 1.9 − 1 = −179/8330;
    # red centre → Andar second, pays 1 to 1: 404/833 × 2 − 1 = −25/833.
    # Overall: (−179/8330 − 250/8330)/2 = −429/16660.
    table = Paytable(
        name="by-first",
        main=(Odds.parse("0.9 to 1"), Odds.parse("1 to 1")),
        keyed_by=MainKey.FIRST_ROW,
    )
    report = odds_report(HOME, table)
    assert bets_of(report)["andar"].expected_return == Fraction(-429, 16660)
    assert bets_of(report)["bahar"].expected_return == Fraction(-429, 16660)
    assert bets_of(report, Colour.BLACK)["andar"].expected_return == Fraction(-179, 8330)
    assert bets_of(report, Colour.RED)["andar"].expected_return == Fraction(-25, 833)
    assert report.warnings == ()


def test_report_json_contract() -> None:
    report = odds_report(CLASSIC, find_paytable("wizard"))
    data = report.to_dict()
    json.dumps(data)  # plain data all the way down
    keys = {
        "bet",
        "given",
        "probability",
        "pays",
        "expected_return",
        "house_edge",
        "player_advantage",
        "variance",
        "standard_deviation",
        "hit_every",
    }
    for item in data["bets"]:
        assert set(item) == keys
        assert isinstance(item["player_advantage"], bool)
        for field in ("probability", "expected_return", "house_edge"):
            assert isinstance(item[field], str)
            Fraction(item[field])  # fraction text like "429/833"
    andar = next(item for item in data["bets"] if item["bet"] == "andar")
    assert andar == {
        "bet": "andar",
        "given": None,
        "probability": "429/833",  # test 1
        "pays": "0.9 to 1",
        "expected_return": "-179/8330",  # test 2
        "house_edge": "179/8330",
        "player_advantage": False,
        # a bet that pays a to 1 or loses 1 has variance p(1 − p)(a + 1)² (a two-point law):
        # 429 · 404 / 833² · 1.9² = 62565291/69388900; its root 0.949572…
        "variance": str(Fraction(429 * 404, 833**2) * Fraction(19, 10) ** 2),
        "standard_deviation": "0.949572",
        "hit_every": "833/429",
    }
    # cards_dealt maps each count (as text) to its probability as fraction text
    expected = first_match_by_comb(51, 3)
    assert data["cards_dealt"] == {str(k): str(p) for k, p in expected.items()}
    assert data["cards_dealt"]["1"] == "1/17"  # 3/51
    assert data["mean_cards_dealt"] == "13"
    assert data["warnings"] == []


def test_report_json_gives_the_centre_colour() -> None:
    data = odds_report(HOME, find_paytable("wizard")).to_dict()
    given = {(b["bet"], b["given"]): b["probability"] for b in data["bets"] if b["given"]}
    assert given[("andar", "centre:black")] == "429/833"
    assert given[("andar", "centre:red")] == "404/833"
    assert given[("bahar", "centre:red")] == "429/833"
    assert any("centre card is red" in w for w in data["warnings"])


# -- 7. every preset pairing builds ----------------------------------------------------------


@pytest.mark.parametrize(("procedure", "paytable"), PRESET_PAIRS)
def test_every_preset_pairing_is_computed(procedure: str, paytable: str) -> None:
    table = PAYTABLES[paytable]
    report = odds_report(PROCEDURES[procedure], table)
    # every bet, but those on the centre card where the procedure turns none
    offered = {
        str(b) for b in table.bets if PROCEDURES[procedure].has_centre or "centre" not in str(b)
    }
    assert {str(b.bet) for b in report.bets if b.given is None} == offered
    for odds in report.bets:
        assert odds.house_edge == -odds.expected_return
        assert 0 <= odds.probability <= 1
        assert odds.player_advantage == (odds.expected_return > 0)
        # per unit staked: a win returns the odds, a loss costs the stake (SPEC §7)
        if table.keyed_by is MainKey.ROW:
            to_one = table.odds_for(odds.bet, first_row=A).to_one
            assert odds.expected_return == odds.probability * (1 + to_one) - 1
    assert report.warnings == tuple(b for b in report.bets if b.expected_return > 0)


# -- invariants over arbitrary procedures and paytables ---------------------------------------

_odds = st.fractions(min_value=Fraction(1, 100), max_value=200, max_denominator=100).map(Odds)


@st.composite
def _paytables(draw: st.DrawFn) -> Paytable:
    cuts = sorted(draw(st.sets(st.integers(2, MAX_CARDS_DEALT), max_size=10)))
    edges = [1, *cuts, MAX_CARDS_DEALT + 1]
    bands = tuple(
        Band(CardsBet(low, high - 1), draw(_odds)) for low, high in itertools.pairwise(edges)
    )
    return Paytable(
        name="h",
        main=(draw(_odds), draw(_odds)),
        keyed_by=draw(st.sampled_from(list(MainKey))),
        bands=bands,
    )


@settings(max_examples=40, deadline=None)
@given(procedure=st.sampled_from(valid_procedures()), table=_paytables())
def test_any_pairing_settles_by_the_reference(procedure: Procedure, table: Paytable) -> None:
    reference = reference_outcomes(procedure)
    report = odds_report(procedure, table)
    for odds in report.bets:
        if odds.given is not None:
            reference_now = reference_outcomes(procedure, odds.given)
        else:
            reference_now = reference
        expected = Fraction(0)
        wins = Fraction(0)
        for (first, winner, k), p in reference_now.items():
            if isinstance(odds.bet, MainBet):
                won = winner is odds.bet.row
                if table.keyed_by is MainKey.ROW:
                    to_one = table.main[0 if odds.bet.row is A else 1].to_one
                else:
                    to_one = table.main[0 if odds.bet.row is first else 1].to_one
            else:
                won = odds.bet.low <= k <= odds.bet.high
                to_one = next(b.odds.to_one for b in table.bands if b.bet == odds.bet)
            wins += p if won else 0
            expected += p * to_one if won else -p
        assert odds.probability == wins
        assert odds.expected_return == expected
        assert odds.house_edge == -expected
    # the bands partition 1–49, so their probabilities add up to 1
    assert (
        sum(
            (b.probability for b in report.bets if isinstance(b.bet, CardsBet) and b.given is None),
            Fraction(0),
        )
        == 1
    )


# -- issue 13: spread, and pays by count ---------------------------------------------------------


@pytest.mark.parametrize("paytable", list(PAYTABLES))
@pytest.mark.parametrize("procedure", ["classic", "home", "first-card", "mangatha"])
def test_standard_deviation_of_two_point_bets_is_the_closed_form(
    procedure: str, paytable: str
) -> None:
    # A bet that pays x to 1 with probability p and loses 1 otherwise has variance
    # p(1 − p)(1 + x)² (a two-point law); every preset bet is one (row-keyed tables).
    rules = find_procedure(procedure)
    table = find_paytable(paytable)
    for odds in odds_report(rules, table).bets:
        x = table.odds_for(odds.bet, first_row=Row.ANDAR).to_one
        p = odds.probability
        assert odds.variance == p * (1 - p) * (1 + x) ** 2
        root = float(p * (1 - p)) ** 0.5 * float(1 + x)
        assert float(odds.standard_deviation) == pytest.approx(root, rel=1e-11)
        assert odds.hit_every == 1 / p


def test_even_money_at_a_fair_coin_has_a_spread_of_one() -> None:
    # home before the centre card: Bahar at 1 to 1 wins 1/2, so R = ±1 and SD = 1 exactly
    home = find_procedure("home").overridden(window=BetWindow.BEFORE_CENTRE)
    bahar = odds_report(home, find_paytable("wizard")).bets[1]
    assert (bahar.variance, str(bahar.standard_deviation), bahar.hit_every) == (
        1,
        "1.000000000000",
        2,
    )


def test_odds_honour_pays_by_count() -> None:
    # Andar paid 0.25 to 1 when 1 card is dealt (P = 3/51 = 1/17, always an Andar win in
    # the classic procedure): E = 429/833 × 1.9 − 1 − 1/17 × 0.65; a three-point law for
    # the variance: 1/17 × 0.25² + (429/833 − 1/17) × 0.9² + 404/833 − E².
    from andar_bahar.engine.paytables import CountPays

    club = Paytable(
        name="club",
        main=(Odds.parse("0.9 to 1"), Odds.parse(1)),
        main_by_count=(CountPays.parse("1", (Odds.parse("0.25 to 1"), None)),),
    )
    andar = odds_report(CLASSIC, club).bets[0]
    e = Fraction(429, 833) * Fraction(19, 10) - 1 - Fraction(1, 17) * Fraction(13, 20)
    assert andar.expected_return == e
    second = (
        Fraction(1, 17) * Fraction(1, 16)
        + (Fraction(429, 833) - Fraction(1, 17)) * Fraction(81, 100)
        + Fraction(404, 833)
    )
    assert andar.variance == second - e * e
    assert andar.pays == "0.9 to 1; 0.25 to 1 if 1 card is dealt"
