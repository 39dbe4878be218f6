"""Settlement, with the seeds' worked examples (SPEC §7)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from andar_bahar.engine.bets import Bet, Wager
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import Row
from andar_bahar.engine.settlement import Outcome, settle
from andar_bahar.i18n import translations

WIZARD = find_paytable("wizard")


def _settle(table: str, winner: Row, cards: int, *bets: tuple[str, int]):
    return settle(
        winner=winner,
        cards_dealt=cards,
        first_row=Row.ANDAR,
        paytable=find_paytable(table),
        wagers=[Wager("p", Bet.parse(b), Decimal(s)) for b, s in bets],
    )


def test_seed_001_example_1() -> None:
    # Seed 001, example 1: 4 cards dealt → Bahar. 100 on Bahar wins 100; a bet on
    # Andar loses; 100 on 1–5 wins 250 (2.5:1).
    s = _settle("wizard", Row.BAHAR, 4, ("bahar", 100), ("andar", 100), ("cards:1-5", 100))
    assert [(b.outcome, b.win) for b in s.bets] == [
        (Outcome.WIN, Decimal(100)),
        (Outcome.LOSE, Decimal(0)),
        (Outcome.WIN, Decimal(250)),
    ]
    assert s.bets[0].returned == Decimal(200) and s.bets[1].returned == 0


def test_seed_001_example_2() -> None:
    # Seed 001, example 2: 5 cards → Andar. 100 on Andar wins 90; 100 on 1–5 wins 250.
    s = _settle("wizard", Row.ANDAR, 5, ("andar", 100), ("cards:1-5", 100))
    assert [b.win for b in s.bets] == [Decimal(90), Decimal(250)]


def test_seed_001_example_3() -> None:
    # Seed 001, example 3: 7 cards → Andar. 120 on Andar wins 108; 100 on 6–10 wins
    # 350; the player with both bets wins 458 in all; a bet on Bahar loses.
    s = _settle("wizard", Row.ANDAR, 7, ("andar", 120), ("cards:6-10", 100))
    assert [b.win for b in s.bets] == [Decimal(108), Decimal(350)]
    assert s.total_win == Decimal(458) == s.players["p"].win
    assert _settle("wizard", Row.ANDAR, 7, ("bahar", 100)).bets[0].outcome is Outcome.LOSE


def test_seed_001_trainer_default_side_bet() -> None:
    # Seed 001: the trainer's rounded table pays 3 to 1 on 1–5: 100 wins 300.
    s = _settle("trainer-default", Row.BAHAR, 4, ("cards:1-5", 100))
    assert s.bets[0].win == Decimal(300)


def test_spec_120_on_andar_wins_108() -> None:
    # SPEC §7: "Stake 120 on Andar at 0.9 to 1 wins 108".
    assert _settle("trainer-default", Row.ANDAR, 1, ("andar", 120)).bets[0].win == Decimal(108)


def test_first_row_keyed_pays_follow_the_first_row() -> None:
    from andar_bahar.engine.paytables import load_paytable

    table = load_paytable(
        'name = "c"\nkeyed_by = "first-row"\n[main]\nfirst = "0.9 to 1"\nsecond = "1 to 1"\n'
    )
    s = settle(
        winner=Row.BAHAR, cards_dealt=1, first_row=Row.BAHAR, paytable=table,
        wagers=[Wager("p", Bet.parse("bahar"), Decimal(100))],
    )  # fmt: skip
    assert s.bets[0].win == Decimal(90)


@given(
    stake=st.integers(1, 10**12),
    winner=st.sampled_from(list(Row)),
    cards=st.integers(1, 49),
)
def test_settlement_is_exact_and_balances(stake: int, winner: Row, cards: int) -> None:
    wagers = [
        Wager("p", Bet.parse(name), Decimal(stake))
        for name in ("andar", "bahar", "cards:1-5", "cards:41-49")
    ]
    s = settle(
        winner=winner, cards_dealt=cards, first_row=Row.ANDAR, paytable=WIZARD, wagers=wagers
    )
    for bet in s.bets:
        assert isinstance(bet.win, Decimal) and isinstance(bet.returned, Decimal)
        assert bet.returned == (bet.stake + bet.win if bet.outcome is Outcome.WIN else 0)
    andar = s.bets[0]
    if winner is Row.ANDAR:
        # 0.9 to 1 on a whole stake, rounded down to whole chips, never via floats
        assert andar.win == Decimal(stake * 9 // 10)
    assert s.house_net == s.total_staked - s.total_returned


def test_void_returns_stakes() -> None:
    s = settle(
        winner=None, cards_dealt=10, first_row=Row.ANDAR, paytable=WIZARD,
        wagers=[Wager("p", Bet.parse("andar"), Decimal(7))],
    )  # fmt: skip
    assert s.void and s.bets[0].outcome is Outcome.VOID and s.bets[0].returned == 7


@pytest.mark.parametrize("name", ["andar", "bahar", "cards:1-5"])
def test_bet_names_round_trip(name: str) -> None:
    assert str(Bet.parse(name)) == name


def test_pays_by_count_are_paid() -> None:
    # Issue 13, item 4: Andar paid 0.25 to 1 when the very first card matches.
    import dataclasses

    from andar_bahar.engine.paytables import CountPays, Odds

    club = dataclasses.replace(
        WIZARD, main_by_count=(CountPays.parse("1", (Odds.parse("0.25 to 1"), None)),)
    )
    one = settle(
        winner=Row.ANDAR, cards_dealt=1, first_row=Row.ANDAR, paytable=club,
        wagers=[Wager("p", Bet.parse("andar"), Decimal(100))],
    )  # fmt: skip
    three = settle(
        winner=Row.ANDAR, cards_dealt=3, first_row=Row.ANDAR, paytable=club,
        wagers=[Wager("p", Bet.parse("andar"), Decimal(100))],
    )  # fmt: skip
    assert (one.bets[0].win, str(one.bets[0].odds)) == (Decimal(25), "0.25 to 1")
    assert three.bets[0].win == Decimal(90)  # the usual 0.9 to 1


def test_each_bet_keeps_its_stake_exact_win_and_net() -> None:
    # Exact computation: 5 on Andar at 0.9 to 1 wins 4.5, paid 4 (the wizard table rounds
    # down to its chip of 1); 5 on Bahar loses; the round is kept as dealt.
    s = _settle("wizard", Row.ANDAR, 3, ("andar", 5), ("bahar", 5))
    andar, bahar = s.bets
    assert (s.winner, s.cards_dealt, s.void) == (Row.ANDAR, 3, False)
    assert (andar.stake, andar.exact_win, andar.win, andar.returned) == (5, Fraction(9, 2), 4, 9)
    assert (andar.net, andar.rounded) == (Decimal(4), True)
    assert (bahar.outcome, bahar.exact_win, bahar.win, bahar.returned) == (Outcome.LOSE, 0, 0, 0)
    assert (bahar.net, bahar.rounded) == (Decimal(-5), False)
    whole = _settle("wizard", Row.ANDAR, 3, ("andar", 10)).bets[0]  # 10 × 0.9 = 9 exactly
    assert (whole.exact_win, whole.win, whole.rounded) == (Fraction(9), Decimal(9), False)


def test_a_void_round_returns_each_stake_and_pays_nothing() -> None:
    s = settle(
        winner=None, cards_dealt=0, first_row=None, paytable=WIZARD,
        wagers=[Wager("p", Bet.parse("andar"), Decimal(7)),
                Wager("q", Bet.parse("cards:1-5"), Decimal(3))],
    )  # fmt: skip
    assert (s.winner, s.void, s.house_net) == (None, True, Decimal(0))
    for bet in s.bets:
        assert (bet.outcome, bet.exact_win, bet.win, bet.net) == (Outcome.VOID, 0, 0, 0)
        assert bet.returned == bet.stake and not bet.rounded
    assert s.postings() == (
        ("p", Decimal(-7), "stake andar"), ("p", Decimal(7), "void andar"),
        ("q", Decimal(-3), "stake cards:1-5"), ("q", Decimal(3), "void cards:1-5"),
    )  # fmt: skip


def test_totals_per_player_and_for_the_round() -> None:
    # Seed 001, example 3 (7 cards → Andar): Asha's 120 on Andar wins 108 and her 100 on
    # 6–10 wins 350 (3.5 to 1); Ravi's 50 on Bahar and 30 on 1–5 lose.
    s = _settle_many(
        Row.ANDAR, 7, ("Ravi", "bahar", 50), ("Asha", "andar", 120), ("Ravi", "cards:1-5", 30),
        ("Asha", "cards:6-10", 100),
    )  # fmt: skip
    assert list(s.players) == ["Ravi", "Asha"]  # in the order they first bet
    asha, ravi = s.players["Asha"], s.players["Ravi"]
    assert (asha.staked, asha.win, asha.returned, asha.net) == (220, 458, 678, 458)
    assert (ravi.staked, ravi.win, ravi.returned, ravi.net) == (80, 0, 0, -80)
    assert (s.total_staked, s.total_win, s.total_returned) == (300, 458, 678)
    assert s.house_net == Decimal(-378)  # 300 staked − 678 handed back


def _settle_many(winner: Row, cards: int, *bets: tuple[str, str, int]):
    return settle(
        winner=winner, cards_dealt=cards, first_row=Row.ANDAR, paytable=WIZARD,
        wagers=[Wager(who, Bet.parse(b), Decimal(s)) for who, b, s in bets],
    )  # fmt: skip


def test_outcomes_are_said_in_the_players_language() -> None:
    # The words of the ru catalogue.
    russian = translations("ru")
    assert [o.localized(russian) for o in Outcome] == [
        "выигрывает", "проигрывает", "ставка возвращается",
    ]  # fmt: skip
    assert [o.localized(None) for o in Outcome] == ["wins", "loses", "void, stake returned"]
