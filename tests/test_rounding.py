"""What chip rounding does at a real stake (issue 13, item 2).

Expected values are derived here independently of the package: P(Andar) by enumerating
where the three matching cards lie among the 51, and each rounded win with math.floor /
math.ceil on exact fractions; the property test settles every outcome through the
engine's own settlement instead.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from andar_bahar.chance.odds import odds_report, outcome_distribution
from andar_bahar.chance.rounding import Stakes, rounding_check, stake_odds
from andar_bahar.engine.bets import Wager
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.paytables import Odds, Paytable, Rounding, find_paytable
from andar_bahar.engine.rules import Row, find_procedure
from andar_bahar.engine.settlement import settle
from andar_bahar.i18n import translations
from stake_support import edges_by_stake, rounded

CLASSIC = find_procedure("classic")
WIZARD = find_paytable("wizard")


def andar_probability_by_enumeration() -> Fraction:
    """Classic: the first of the 3 matching cards among 51 falls at an odd position."""
    first = [min(c) for c in itertools.combinations(range(1, 52), 3)]
    return Fraction(sum(1 for k in first if k % 2 == 1), len(first))


P_ANDAR = andar_probability_by_enumeration()
P_ONE_TO_FIVE = Fraction(
    sum(1 for c in itertools.combinations(range(1, 52), 3) if min(c) <= 5),
    math.comb(51, 3),
)


def expected_at(stake: int, pay: Fraction, p: Fraction, rule: Rounding) -> Fraction:
    """Return per unit staked with chip 1: p × rounded(stake × pay) / stake − (1 − p)."""
    return p * rounded(stake * pay, rule) / stake - (1 - p)


def table(rule: Rounding, **changes: object) -> Paytable:
    return dataclasses.replace(WIZARD, rounding=rule, **changes)  # type: ignore[arg-type]


def test_the_enumerated_probabilities_are_the_published_ones() -> None:
    assert Fraction(429, 833) == P_ANDAR  # SPEC / docs/odds.md
    assert Fraction(1129, 4165) == P_ONE_TO_FIVE


@pytest.mark.parametrize("rule", list(Rounding))
@pytest.mark.parametrize("stake", [1, 5, 10])
def test_the_edge_at_stakes_1_5_10_under_each_rounding_rule(rule: Rounding, stake: int) -> None:
    at = {str(o.bet): o for o in stake_odds(odds_report(CLASSIC, table(rule)), Decimal(stake))}
    andar = expected_at(stake, Fraction(9, 10), P_ANDAR, rule)
    one_to_five = expected_at(stake, Fraction(5, 2), P_ONE_TO_FIVE, rule)
    assert at["andar"].expected_return == andar
    assert at["cards:1-5"].expected_return == one_to_five
    assert at["andar"].nominal_return == P_ANDAR * Fraction(19, 10) - 1


def test_the_issues_figures() -> None:
    # Issue 13: rounding up, Andar stakes 1–9 are paid 1:1, +25/833 for the player;
    # half-up, stakes 1–5; rounding down, 1 chip pays nothing (48.5 %), 5 chips 7.3 %.
    for rule, stakes in ((Rounding.UP, range(1, 10)), (Rounding.HALF_UP, range(1, 6))):
        report = odds_report(CLASSIC, table(rule))
        for stake in stakes:
            assert stake_odds(report, Decimal(stake))[0].expected_return == Fraction(25, 833)
    down = odds_report(CLASSIC, WIZARD)
    one = stake_odds(down, Decimal(1))[0]
    assert one.pays_nothing and one.house_edge == Fraction(404, 833)
    assert stake_odds(down, Decimal(5))[0].house_edge == Fraction(304, 4165)  # 7.30 %


@pytest.mark.parametrize("rule", list(Rounding))
def test_the_warnings_list_exactly_the_harmful_stakes(rule: Rounding) -> None:
    # Brute force over stakes 1..300 (every harm ends far below: see rounding.py's bound)
    check = rounding_check(odds_report(CLASSIC, table(rule, bands=())))
    edge = [n for n in range(1, 301) if expected_at(n, Fraction(9, 10), P_ANDAR, rule) > 0]
    nothing = [n for n in range(1, 301) if rounded(n * Fraction(9, 10), rule) == 0]
    risks = {str(r.bet): r for r in check.risks}
    if not edge and not nothing:
        assert check.risks == () and check.messages() == []
        return
    andar = risks.pop("andar")
    assert list(andar.player_edge.units) == edge
    assert list(andar.pays_nothing.units) == nothing
    assert risks == {}  # Bahar pays 1 to 1: whole chips at every stake
    assert check.recommended_min == max(edge + nothing) + 1
    expected = {Rounding.DOWN: [1], Rounding.HALF_UP: [1, 2, 3, 4, 5]}
    expected[Rounding.UP] = [*range(1, 10), 18, 19]
    assert (edge or nothing) == expected[rule]


def test_the_messages_say_what_to_do() -> None:
    check = rounding_check(odds_report(CLASSIC, table(Rounding.UP, bands=())))
    text = [str(m) for m in check.messages()]
    assert text == [
        "Rounding: at stakes of 1–9, 18–19 the player has the edge on Andar: up to +3.00 % per"
        " unit staked (the odds give the house 2.15 %).",
        "Set the table minimum ([limits] min) to 20 or more to avoid these stakes.",
    ]
    assert str(rounding_check(odds_report(CLASSIC, WIZARD)).messages()[0]) == (
        "Rounding: a winning bet on Andar can be paid nothing at a stake of 1"
        " (wins rounded down to the chip, chip 1)."
    )


def test_only_the_stakes_the_table_allows_are_warned_about() -> None:
    up = table(Rounding.UP, bands=(), min_stake=Decimal(10))
    risks = rounding_check(odds_report(CLASSIC, up)).risks
    assert [list(r.player_edge.units) for r in risks] == [[18, 19]]
    safe = table(Rounding.UP, bands=(), min_stake=Decimal(20))
    assert rounding_check(odds_report(CLASSIC, safe)).messages() == []
    capped = table(Rounding.UP, bands=(), max_stake=Decimal(15))
    messages = [str(m) for m in rounding_check(odds_report(CLASSIC, capped)).messages()]
    assert "stakes of 1–9 the player" in messages[0]
    assert messages[-1].startswith("Set the table minimum ([limits] min) to 10")


def test_a_minimum_above_the_maximum_is_said_to_be_no_way_out() -> None:
    capped = table(Rounding.UP, bands=(), min_stake=Decimal(1), max_stake=Decimal(19))
    last = str(rounding_check(odds_report(CLASSIC, capped)).messages()[-1])
    assert last.startswith("Only a table minimum of 20 or more avoids these stakes")


def test_the_chip_counts_in_chips_not_in_units() -> None:
    # chip 5: a 5 stake is one chip; 5 × 0.9 = 4.5 is less than a chip, paid nothing
    fives = table(Rounding.DOWN, bands=(), chip=Decimal(5))
    check = rounding_check(odds_report(CLASSIC, fives))
    assert [str(s) for s in (r.pays_nothing for r in check.risks)] == ["5"]
    assert check.recommended_min == Decimal(10)


def test_a_fair_bet_rounded_up_has_no_safe_minimum() -> None:
    # Bahar paid exactly fair, 429/404 to 1: rounding up gives the player the edge at
    # most stakes of every size; no minimum avoids it.
    fair = table(Rounding.UP, bands=(), main=(Odds.parse("0.9 to 1"), Odds.parse("429/404 to 1")))
    report = odds_report(CLASSIC, fair)
    assert report.bets[1].expected_return == 0
    check = rounding_check(report)
    assert not check.avoidable and check.recommended_min is None
    assert str(check.messages()[-1]).startswith("No table minimum avoids it")
    bahar = next(r for r in check.risks if str(r.bet) == "bahar")
    assert bahar.player_edge.more and str(bahar.player_edge).endswith("…")
    # every stake but the multiples of 404 (where 429/404 pays whole chips, exactly fair)
    assert list(bahar.player_edge.units[:403]) == list(range(1, 404))
    assert bahar.player_edge.units[403] == 405


def test_a_bet_the_odds_give_the_player_is_warned_about_at_every_stake_too() -> None:
    # andar-0.95 under classic: Andar's exact odds give the player 429/833 × 1.95 − 1 =
    # +0.43 %, so rounding's check skipped it, and with it the 1-chip win that pays nothing
    # (0.95 rounded down); the brute force below is the return at each stake by floor().
    table = dataclasses.replace(find_paytable("andar-0.95"), bands=())
    check = rounding_check(odds_report(CLASSIC, table))
    andar = next(r for r in check.risks if str(r.bet) == "andar")
    assert list(andar.pays_nothing.units) == [1]
    pay = Fraction(19, 20)
    edge = [n for n in range(1, 3001) if expected_at(n, pay, P_ANDAR, Rounding.DOWN) > 0]
    assert edge[:4] == [18, 19, 20, 35] and 102 not in edge
    assert edge[edge.index(103) :] == list(range(103, 3001))
    listed = [*andar.player_edge.units, *range(andar.player_edge.from_on or 0, 3001)]
    assert listed == edge
    assert andar.safe_from is None and not check.avoidable
    assert [str(m) for m in check.messages()] == [
        "Rounding: a winning bet on Andar can be paid nothing at a stake of 1 (wins rounded"
        " down to the chip, chip 1).",
        "Rounding: at stakes of 18–20, 35–40, 52–60, 69–80, 86–100, 103 or more the player has"
        " the edge on Andar: up to +0.43 % per unit staked (the exact odds give the player"
        " +0.43 %).",
        "No table minimum avoids it: at the exact pays the player has the edge on Andar, so"
        " larger stakes keep it; lower the pays.",
    ]


@given(
    pay=st.integers(1, 400).map(lambda n: Fraction(n, 20)),
    rule=st.sampled_from(list(Rounding)),
    chip=st.sampled_from([Decimal(1), Decimal(5), Decimal("0.5")]),
    units=st.integers(1, 60),
    procedure=st.sampled_from(["classic", "home", "first-card", "mangatha"]),
)
@settings(max_examples=60, deadline=None)
def test_stake_odds_agree_with_settling_every_outcome(
    pay: Fraction, rule: Rounding, chip: Decimal, units: int, procedure: str
) -> None:
    # Property: the return at a stake is Σ P(outcome) × net(outcome) / stake, each net
    # worked out by the engine's settlement (its own rounding path).
    rules = find_procedure(procedure)
    club = Paytable(name="club", main=(Odds.parse(pay), Odds.parse(1)), chip=chip, rounding=rule)
    stake = chip * units
    got = stake_odds(odds_report(rules, club), stake)[0]
    total = Fraction(0)
    for (first, winner, k), p in outcome_distribution(rules).probabilities.items():
        s = settle(
            winner=winner, cards_dealt=k, first_row=first, paytable=club,
            wagers=[Wager("a", got.bet, stake)],
        )  # fmt: skip
        total += p * Fraction(s.bets[0].net)
    assert got.expected_return == total / Fraction(stake)
    assert got.pays_nothing == (club.win(stake, club.main[0]) == 0)
    assert str(got.bet) == Row.ANDAR.value


def harmed_by_brute_force(procedure: str, paytable: Paytable, top: int = 300) -> dict:
    """Every bet (and situation) of the report → the stakes 1..*top* at which, worked out the
    long way (tests/stake_support.py: each win paid by the settlement's own rounding), a win
    pays nothing or the player has the edge."""
    rules = find_procedure(procedure)
    harmed = {}
    for odds in odds_report(rules, paytable).bets:
        edges = edges_by_stake(rules, paytable, odds.bet, odds.given, range(1, top + 1))
        pays = {paytable.odds_for(odds.bet, first_row=Row.ANDAR, cards_dealt=k).to_one
                for k in range(1, 50) for winner in Row
                if odds.bet.wins(winner=winner, cards_dealt=k)}  # fmt: skip
        rule = paytable.rounding
        nothing = [n for n in range(1, top + 1) if any(rounded(n * x, rule) == 0 for x in pays)]
        edge = [n for n, e in edges.items() if e < 0]
        harmed[(str(odds.bet), odds.given)] = (nothing, edge)
    return harmed


@pytest.mark.parametrize(("rule", "minimum"), [(Rounding.HALF_UP, 6), (Rounding.UP, 20)])
def test_with_the_side_bets_in_the_minimum_is_the_largest_any_bet_needs(
    rule: Rounding, minimum: int
) -> None:
    # The wizard table with its eight side bets: each bet harmed at its own stakes (half-up:
    # Andar 1–5, 16–25 cards 1, 3, 5, 6–10 cards 1, 3); the minimum clears them all.
    check = rounding_check(odds_report(CLASSIC, table(rule)))
    harmed = harmed_by_brute_force("classic", table(rule))
    assert {(str(r.bet), r.given): (list(r.pays_nothing.units), list(r.player_edge.units))
            for r in check.risks} == {key: h for key, h in harmed.items() if h != ([], [])}  # fmt: skip
    assert len(check.risks) == 5  # Andar and four of the bands
    worst = max(n for nothing, edge in harmed.values() for n in nothing + edge)
    assert check.recommended_min == worst + 1 == minimum


def test_each_centre_colour_is_checked_on_its_own_and_said_once_per_bet() -> None:
    # Home rules: the centre card's colour changes each row's chances, so each bet is checked
    # once the centre is black and once it is red; a win paid nothing is the same whatever the
    # centre (the pays do not change), and said once.
    down = rounding_check(odds_report(find_procedure("home"), WIZARD))
    assert [str(m) for m in down.messages()] == [
        "Rounding: a winning bet on Andar can be paid nothing at a stake of 1 (wins rounded"
        " down to the chip, chip 1).",
        "Rounding: at stakes of 1 or more the player has the edge on Bahar once the centre card"
        " is red: up to +3.00 % per unit staked (the exact odds give the player +3.00 %).",
        "No table minimum avoids it: at the exact pays the player has the edge on Bahar once the"
        " centre card is red, so larger stakes keep it; lower the pays.",
    ]
    up = table(Rounding.UP, bands=())
    check = rounding_check(odds_report(find_procedure("home"), up))
    harmed = harmed_by_brute_force("home", up)
    assert {(str(r.bet), r.given): (list(r.pays_nothing.units), listed(r.player_edge, 300))
            for r in check.risks} == {key: h for key, h in harmed.items() if h != ([], [])}  # fmt: skip
    assert [(str(r.bet), r.given) for r in check.risks] == [
        ("andar", Colour.BLACK),
        ("bahar", Colour.RED),
    ]
    assert str(check.messages()[0]) == (
        "Rounding: at stakes of 1–9, 18–19 the player has the edge on Andar once the centre"
        " card is black: up to +3.00 % per unit staked (the odds give the house 2.15 %)."
    )


def test_two_bets_each_paid_nothing_are_each_said() -> None:
    # Exact computation, rounded down with chip 1: 0.5 to 1 pays 0 at stake 1 (1 × 0.5 < 1)
    # and 0.25 to 1 at stakes 1–3 (3 × 0.25 < 1); each bet is said, once.
    halves = table(Rounding.DOWN, bands=(), main=(Odds.parse("0.5"), Odds.parse("0.25")))
    text = [str(m) for m in rounding_check(odds_report(CLASSIC, halves)).messages()]
    assert [line for line in text if "paid nothing" in line] == [
        "Rounding: a winning bet on Andar can be paid nothing at a stake of 1 (wins rounded"
        " down to the chip, chip 1).",
        "Rounding: a winning bet on Bahar can be paid nothing at stakes of 1–3 (wins rounded"
        " down to the chip, chip 1).",
    ]


def listed(stakes: Stakes, top: int) -> list[int]:
    """The stakes up to *top* of a :class:`Stakes` ("18–20, 103 or more")."""
    return [*stakes.units, *range(stakes.from_on or top + 1, top + 1)]


def andar_at(odds: str, rule: Rounding, **limits: Decimal) -> Paytable:
    return table(rule, bands=(), main=(Odds.parse(odds), Odds.parse(1)), **limits)


def test_the_stakes_paid_nothing_follow_the_rule_and_stop_at_the_maximum() -> None:
    # Exact computation: 0.25 to 1 rounded down pays 0 at stakes 1–3 (3 × 0.25 < 1); with a
    # maximum of 2 only 1–2 are allowed, and a minimum of 3 is above it. Rounded up, every
    # win pays a chip (1 × 0.25 → 1, and the player has the edge there). Half-up, 0.2 to 1
    # pays 0 at 1–2 (0.4 → 0, 0.6 → 1).
    capped = rounding_check(
        odds_report(CLASSIC, andar_at("0.25", Rounding.DOWN, max_stake=Decimal(2)))
    )
    (risk,) = capped.risks
    assert (list(risk.pays_nothing.units), risk.best_return, risk.safe_from) == ([1, 2], 0, 3)
    assert [str(m) for m in capped.messages()] == [
        "Rounding: a winning bet on Andar can be paid nothing at stakes of 1–2 (wins rounded"
        " down to the chip, chip 1).",
        "Only a table minimum of 3 or more avoids these stakes, above the table maximum of 2:"
        " change the pays or the rounding rule.",
    ]
    (up,) = rounding_check(odds_report(CLASSIC, andar_at("0.25", Rounding.UP))).risks
    assert (list(up.pays_nothing.units), list(up.player_edge.units)) == ([], [1])
    assert str(
        rounding_check(odds_report(CLASSIC, andar_at("0.25", Rounding.UP))).messages()[0]
    ) == (
        "Rounding: at a stake of 1 the player has the edge on Andar: up to +3.00 % per unit"
        " staked (the odds give the house 35.62 %)."
    )
    (half,) = rounding_check(odds_report(CLASSIC, andar_at("0.2", Rounding.HALF_UP))).risks
    assert list(half.pays_nothing.units) == [1, 2]


def test_a_minimum_equal_to_the_maximum_is_a_way_out() -> None:
    # Rounded up, Andar's harm ends at 19: a table whose maximum is 20 can set its minimum to 20.
    capped = rounding_check(
        odds_report(CLASSIC, table(Rounding.UP, bands=(), max_stake=Decimal(20)))
    )
    assert str(capped.messages()[-1]) == (
        "Set the table minimum ([limits] min) to 20 or more to avoid these stakes."
    )


def test_one_stake_where_the_player_has_the_edge_is_said_in_the_singular() -> None:
    # andar-0.95 at exactly 18 chips (minimum and maximum 18): 18 × 0.95 = 17.1, paid 17.
    single = dataclasses.replace(
        find_paytable("andar-0.95"), bands=(), min_stake=Decimal(18), max_stake=Decimal(18)
    )
    check = rounding_check(odds_report(CLASSIC, single))
    assert [str(m) for m in check.messages()] == [
        "Rounding: at a stake of 18 the player has the edge on Andar: up to +0.14 % per unit"
        " staked (the exact odds give the player +0.43 %).",
        "Only a table minimum of 19 or more avoids these stakes, above the table maximum of 18:"
        " change the pays or the rounding rule.",
    ]
    # Exact computation: 429/833 × (18 + 17) / 18 − 1 = 1/714 ≈ +0.14 %
    assert (
        check.risks[0].best_return == Fraction(429, 833) * Fraction(35, 18) - 1 == Fraction(1, 714)
    )


@pytest.mark.parametrize(("denominator", "more"), [(10_001, False), (10_002, True)])
def test_at_most_ten_thousand_stakes_are_listed(denominator: int, more: bool) -> None:
    # 1/d to 1 rounded down pays nothing below d chips: 10,000 stakes are listed in full,
    # 10,001 are cut (with "…").
    check = rounding_check(odds_report(CLASSIC, andar_at(f"1/{denominator}", Rounding.DOWN)))
    (risk,) = check.risks
    assert (len(risk.pays_nothing.units), risk.pays_nothing.more) == (10_000, more)
    assert check.recommended_min == denominator


def test_the_fair_bet_rounded_up_says_why_no_minimum_helps() -> None:
    fair = table(Rounding.UP, bands=(), main=(Odds.parse("0.9 to 1"), Odds.parse("429/404 to 1")))
    assert [str(m) for m in rounding_check(odds_report(CLASSIC, fair)).messages()] == [
        "Rounding: at stakes of 1–9, 18–19 the player has the edge on Andar: up to +3.00 % per"
        " unit staked (the odds give the house 2.15 %).",
        "Rounding: at stakes of 1–403, 405–807, 809–1211, 1213–1615, 1617–2019, 2021–2423, …"
        " the player has the edge on Bahar: up to +45.50 % per unit staked (the odds give the"
        " house 0.00 %).",
        "No table minimum avoids it: with wins rounded up to the chip, some stakes of every size"
        " give the player the edge; round wins down or lower the pays.",
    ]


def test_the_bets_without_a_safe_minimum_are_named_in_the_players_language() -> None:
    # Both main bets pay more than fair (Andar 0.95 to 1, Bahar 1.1 to 1): both are named.
    generous = table(
        Rounding.DOWN, bands=(), main=(Odds.parse("0.95 to 1"), Odds.parse("1.1 to 1"))
    )
    last = rounding_check(odds_report(CLASSIC, generous)).messages()[-1]
    assert str(last) == (
        "No table minimum avoids it: at the exact pays the player has the edge on Andar, Bahar,"
        " so larger stakes keep it; lower the pays."
    )
    assert last.localized(translations("ru")) == (  # the ru catalogue's sentence and bet names
        "Никакой минимум стола этого не исключает: при точных выплатах перевес у игрока в"
        " ставках Андар, Бахар, и при больших ставках он сохраняется; снизьте выплаты."
    )
    home = rounding_check(odds_report(find_procedure("home"), generous)).messages()[-1]
    assert "ставках Бахар, Андар, если джокер чёрный, Бахар, если джокер чёрный," in home.localized(
        translations("ru")
    )


def test_a_bet_at_a_stake_carries_its_situation_and_figures() -> None:
    report = odds_report(find_procedure("home"), WIZARD)
    at_five = stake_odds(report, Decimal(5))
    black = next(o for o in at_five if str(o.bet) == "andar" and o.given is Colour.BLACK)
    source = next(b for b in report.bets if str(b.bet) == "andar" and b.given is Colour.BLACK)
    assert (black.stake, black.probability) == (Decimal(5), source.probability)
    edges = edges_by_stake(find_procedure("home"), WIZARD, source.bet, Colour.BLACK, [5])
    assert black.house_edge == edges[5]
    assert black.to_dict() == {
        "stake": "5",
        "expected_return": str(-edges[5]),
        "house_edge": str(edges[5]),
        "player_advantage": False,
        "pays_nothing": False,
    }
