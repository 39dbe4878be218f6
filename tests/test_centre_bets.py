"""The bets on the centre card: its suit, colour, rank, and low (A–6) / seven / high (8–K).

Open only until the centre card is turned, settled the moment it is, paid with the round
(returned if the round is void); in paytable files, the exact odds, the rounding at a
stake, the designer and the house's hold law. Every expected figure is worked out here
from the rule itself: a bet wins on a share of the 52 cards.
"""

from __future__ import annotations

import dataclasses
import json
import random
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from andar_bahar.chance.design import EdgeRange, design_paytable
from andar_bahar.chance.hold import round_law
from andar_bahar.chance.odds import odds_report, outcome_distribution
from andar_bahar.chance.rounding import rounding_check, stake_odds
from andar_bahar.cli import app
from andar_bahar.engine.bets import Bet, CentreBet, CentreKind, Wager
from andar_bahar.engine.cards import FULL_DECK, Card, Colour, Rank, Suit
from andar_bahar.engine.errors import BetError, PaytableError
from andar_bahar.engine.paytables import check_paytable, find_paytable, load_paytable
from andar_bahar.engine.round import CentreTurned, Round, stacked_deck
from andar_bahar.engine.rules import BetWindow, Procedure, Row, StartRule, find_procedure
from andar_bahar.engine.settlement import Outcome, settle
from andar_bahar.games.drills import DrillKind, make_drill

TABLE = find_paytable("joker")
CLASSIC = find_procedure("classic")

# The rule as the issue states it, written apart from the engine: the ace counts low.
_VALUE = {Rank.ACE: 1, Rank.JACK: 11, Rank.QUEEN: 12, Rank.KING: 13}


def _value(rank: Rank) -> int:
    return _VALUE.get(rank) or int(rank.value)


def direct_rule(bet: CentreBet, card: Card) -> bool:
    """Whether *bet* wins on *card*: same suit, same colour (♥ ♦ red), same rank, A–6, 7, 8–K."""
    red = card.suit.value in "♥♦"
    return {
        CentreKind.SUIT: card.suit == bet.value,
        CentreKind.COLOUR: (Colour.RED if red else Colour.BLACK) == bet.value,
        CentreKind.RANK: card.rank == bet.value,
        CentreKind.LOW: 1 <= _value(card.rank) <= 6,
        CentreKind.SEVEN: _value(card.rank) == 7,
        CentreKind.HIGH: 8 <= _value(card.rank) <= 13,
    }[bet.kind]


# -- the bets and their text ------------------------------------------------------------------


def test_the_preset_offers_every_centre_bet_and_each_text_reads_back() -> None:
    bets = TABLE.centre_bets
    # 4 suits, 2 colours, 13 ranks, low, seven, high
    assert len(bets) == 4 + 2 + 13 + 3 and len(set(bets)) == len(bets)
    for bet in bets:
        assert Bet.parse(str(bet)) == bet and TABLE.offers(bet)
    assert [str(b) for b in bets[-3:]] == ["centre:low", "centre:seven", "centre:high"]


@pytest.mark.parametrize(
    ("text", "bet"),
    [
        ("centre:suit:♥", CentreBet(CentreKind.SUIT, Suit.HEARTS)),
        ("Center:Suit:h", CentreBet(CentreKind.SUIT, Suit.HEARTS)),
        ("centre:suit:ч", CentreBet(CentreKind.SUIT, Suit.HEARTS)),  # Russian черви
        ("centre: colour: RED", CentreBet(CentreKind.COLOUR, Colour.RED)),
        ("centre:color:black", CentreBet(CentreKind.COLOUR, Colour.BLACK)),
        ("centre:rank:q", CentreBet(CentreKind.RANK, Rank.QUEEN)),
        ("centre:rank:T", CentreBet(CentreKind.RANK, Rank.TEN)),
        ("centre:low", CentreBet(CentreKind.LOW)),
        ("CENTRE:SEVEN", CentreBet(CentreKind.SEVEN)),
        ("centre:high", CentreBet(CentreKind.HIGH)),
    ],
)
def test_centre_bets_are_read_in_any_case_and_notation(text: str, bet: CentreBet) -> None:
    assert Bet.parse(text) == bet


@pytest.mark.parametrize(
    "text", ["centre:", "centre:suit", "centre:suit:x", "centre:rank:1", "centre:low:A",
             "centre:colour:green", "centre:parity:odd", "centre:rank:٣"],
)  # fmt: skip
def test_a_wrong_centre_bet_gets_one_sentence_showing_every_form(text: str) -> None:
    with pytest.raises(BetError) as caught:
        Bet.parse(text)
    message = str(caught.value)
    assert message.startswith(f"Unknown bet on the centre card '{text}'")
    assert "centre:suit:♥" in message and "centre:low (A–6)" in message and message.count(".") == 1


def test_the_labels_say_what_each_bet_is_on() -> None:
    labels = [Bet.parse(t).localized(None) for t in ("centre:suit:h", "centre:colour:red",
              "centre:rank:q", "centre:low", "centre:seven", "centre:high")]  # fmt: skip
    assert labels == ["centre card ♥", "red centre card", "centre card Q",
                      "centre card low (A–6)", "centre card seven (7)",
                      "centre card high (8–K)"]  # fmt: skip


# -- settlement: the direct rule, for every card ---------------------------------------------


@given(
    card=st.sampled_from(FULL_DECK),
    bet=st.sampled_from(TABLE.centre_bets),
    stake=st.integers(1, 10_000),
)
def test_settlement_of_a_centre_bet_is_the_direct_rule_for_every_card(
    card: Card, bet: CentreBet, stake: int
) -> None:
    """Property: won exactly when the rule says, paid stake × pay rounded down to the chip."""
    settled = settle(
        winner=Row.ANDAR, cards_dealt=3, first_row=Row.ANDAR, paytable=TABLE, centre=card,
        wagers=[Wager("asha", bet, Decimal(stake))],
    ).bets[0]  # fmt: skip
    pays = {"suit": Fraction(29, 10), "colour": Fraction(19, 20), "rank": Fraction(23, 2),
            "low": Fraction(11, 10), "seven": Fraction(23, 2), "high": Fraction(11, 10)}  # fmt: skip
    if direct_rule(bet, card):
        win = stake * pays[bet.kind.value]
        assert settled.outcome is Outcome.WIN and settled.exact_win == win
        assert settled.win == win.numerator // win.denominator  # rounded down to chips of 1
        assert settled.returned == stake + settled.win
    else:
        assert settled.outcome is Outcome.LOSE and settled.returned == 0


def test_each_kind_wins_on_its_share_of_the_deck() -> None:
    # a suit 13 cards, a colour 26, a rank 4, A–6 24, a seven 4, 8–K 24: all 52 split
    wins = {str(b): sum(b.wins_on(c) for c in FULL_DECK) for b in TABLE.centre_bets}
    assert {wins["centre:suit:♠"], wins["centre:colour:red"], wins["centre:rank:A"]} == {13, 26, 4}
    assert (wins["centre:low"], wins["centre:seven"], wins["centre:high"]) == (24, 4, 24)
    assert wins["centre:low"] + wins["centre:seven"] + wins["centre:high"] == 52


# -- the round: open until the turn, settled at it --------------------------------------------


def _round(procedure: Procedure = CLASSIC, top: str = "Q♥ 4♣ 7♦ Q♠") -> Round:
    deck = stacked_deck(Card.parse_many(top), random.Random(5))
    return Round(procedure, TABLE, deck=deck, balances={"asha": Decimal(500), "ravi": Decimal(500)})


def test_a_played_round_settles_centre_bets_at_the_turn_and_pays_them_with_the_round() -> None:
    rnd = _round()
    rnd.place_bet("asha", "centre:suit:h", 10)  # Q♥: wins 10 × 2.9 = 29
    rnd.place_bet("asha", "centre:rank:Q", 10)  # wins 10 × 11.5 = 115
    rnd.place_bet("ravi", "centre:low", 20)  # a queen is high: loses 20
    rnd.place_bet("ravi", "bahar", 20)
    assert rnd.centre_bets_open and rnd.centre_settled == ()
    turned = rnd.turn_centre()
    assert not rnd.centre_bets_open and rnd.bets_open  # classic: the main bets stay open
    paid = [(b.player, str(b.bet), b.outcome.value, b.win) for b in turned.bets]
    assert paid == [("asha", "centre:suit:♥", "win", 29), ("asha", "centre:rank:Q", "win", 115),
                    ("ravi", "centre:low", "lose", 0)]  # fmt: skip
    assert rnd.centre_settled == turned.bets
    rnd.place_bet("asha", "andar", 10)  # after the turn: the main bets only
    rnd.play()  # 4♣ → Bahar? no: classic starts Andar: 4♣ A, 7♦ B, Q♠ A → Andar, 3 cards
    settlement = rnd.settle().settlement
    by_bet = {(b.player, str(b.bet)): b for b in settlement.bets}
    for centre_bet in turned.bets:  # the same figures in the round's settlement
        assert by_bet[(centre_bet.player, str(centre_bet.bet))] == centre_bet
    assert by_bet[("asha", "andar")].win == 9 and by_bet[("ravi", "bahar")].returned == 0
    # the ledger of the round sums to zero: the players' changes mirror the house's
    assert sum(amount for _, amount, _ in settlement.postings()) == -settlement.house_net
    assert settlement.house_net == 20 + 20 - (29 + 115 + 9)


@pytest.mark.parametrize("verb", ["place", "change", "withdraw"])
def test_after_the_turn_a_centre_bet_is_closed_whatever_the_window(verb: str) -> None:
    rnd = _round()
    rnd.place_bet("asha", "centre:colour:red", 10)
    rnd.turn_centre()
    steps = {
        "place": lambda: rnd.place_bet("asha", "centre:colour:red", 10),
        "change": lambda: rnd.change_bet("asha", "centre:colour:red", 20),
        "withdraw": lambda: rnd.withdraw_bet("asha", "centre:colour:red"),
    }
    with pytest.raises(BetError, match=r"^Bets on the centre card are closed: they close when"
                       r" it is turned \(Q♥\), so the bet on red centre card"):  # fmt: skip
        steps[verb]()
    assert [str(w.bet) for w in rnd.wagers] == ["centre:colour:red"]


def test_take_back_and_double_leave_a_closed_centre_bet_alone() -> None:
    rnd = _round()
    rnd.place_bet("asha", "andar", 10)
    rnd.place_bet("asha", "centre:seven", 10)
    rnd.turn_centre()
    assert str(rnd.last_placement("asha").bet) == "andar"  # type: ignore[union-attr]
    doubled = rnd.double_bets("asha")
    assert [(str(d.bet), d.total) for d in doubled] == [("andar", 20)]
    rnd.take_back("asha")
    rnd.take_back("asha")
    assert [(str(w.bet), w.stake) for w in rnd.wagers] == [("centre:seven", 10)]
    with pytest.raises(BetError, match="no bet on the table to take back"):
        rnd.take_back("asha")


def test_before_centre_window_opens_centre_bets_with_the_others() -> None:
    rnd = _round(CLASSIC.replace(window=BetWindow.BEFORE_CENTRE))
    rnd.place_bet("asha", "centre:high", 10)
    rnd.turn_centre()
    with pytest.raises(BetError, match="close before the centre card is turned"):
        rnd.place_bet("asha", "centre:high", 10)


def test_a_dealer_who_closes_the_bets_closes_the_centre_bets_too() -> None:
    rnd = _round()
    rnd.close_bets()
    assert not rnd.centre_bets_open
    with pytest.raises(BetError, match="the dealer has closed them"):
        rnd.place_bet("asha", "centre:low", 10)


def test_chosen_rank_refuses_centre_bets_in_one_sentence() -> None:
    rnd = Round(find_procedure("mangatha"), TABLE, target=Rank.QUEEN)
    with pytest.raises(BetError) as caught:
        rnd.place_bet("asha", "centre:suit:h", 10)
    assert str(caught.value) == (
        "The procedure 'mangatha' turns no centre card: there is no bet on the centre card"
        " to place, change or take back."
    )
    assert rnd.wagers == ()


def test_a_table_without_centre_bets_names_what_it_offers() -> None:
    rnd = Round(CLASSIC, find_paytable("wizard"))
    with pytest.raises(BetError, match=r"has no bet centre:low; it offers andar, bahar, cards:1-5"):
        rnd.place_bet("asha", "centre:low", 10)
    # the row standing for every suit is no bet of its own: the list shows how to name one
    with pytest.raises(BetError, match=r"it offers .*cards:41-49, centre:suit:…, centre:colour:…"):
        TABLE.check_offers(CentreBet(CentreKind.SUIT))


def test_a_void_round_returns_the_centre_bets_too() -> None:
    rnd = Round(CLASSIC, TABLE)  # a real deck, typed in: the dealer calls it off
    rnd.place_bet("asha", "centre:suit:s", 10)
    assert rnd.turn_centre(Card.parse("5♠")).bets[0].win == 29  # decided at the turn …
    rnd.deal(Card.parse("2♦"))
    rnd.void("deck exhausted")
    paid = rnd.settle().settlement.bets[0]  # … but the round is called off whole
    assert (paid.outcome, paid.returned, paid.win) == (Outcome.VOID, 10, 0)


def test_the_record_replays_and_keeps_what_the_turn_paid() -> None:
    rnd = _round()
    rnd.place_bet("asha", "centre:colour:black", 30)
    rnd.turn_centre()
    rnd.play()
    rnd.settle()
    centre_step = next(op for op in rnd.to_dict()["operations"] if op["op"] == "centre")
    assert centre_step["paid"] == [{"player": "asha", "bet": "centre:colour:black", "stake": "30",
                                    "outcome": "lose", "win": "0", "returned": "0"}]  # fmt: skip
    again = Round.loads(rnd.dumps())
    assert again.operations == rnd.operations
    assert isinstance(again.operations[1], CentreTurned) and again.paytable == TABLE


# -- paytable files ----------------------------------------------------------------------------

CLUB = """name = "club"
[main]
andar = "0.9 to 1"
bahar = "1 to 1"
"""


def test_a_club_file_offers_the_kinds_it_lists_and_writes_them_back() -> None:
    table = load_paytable(CLUB + '[centre]\nsuit = "4 for 1"\nseven = 11\n', source="club.toml")
    assert [(p.kind.value, str(p.odds)) for p in table.centre] == [("suit", "3 to 1"),
                                                                  ("seven", "11 to 1")]  # fmt: skip
    assert [str(b) for b in table.centre_bets] == [
        "centre:suit:♠", "centre:suit:♥", "centre:suit:♦", "centre:suit:♣", "centre:seven"]  # fmt: skip
    assert not table.offers(Bet.parse("centre:low"))
    assert load_paytable(table.to_toml()) == table
    assert load_paytable(TABLE.to_toml()) == TABLE


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ('[centre]\nparity = "1 to 1"\n', "club.toml, centre.parity: unknown field 'parity'; the"
         " fields are suit, colour, rank, low, seven, high."),
        ('[centre]\nsuit = "0 to 1"\n', "club.toml, centre.suit: The odds '0 to 1' must be"
         " greater than zero."),
        ('[centre]\nrank = "١٢ to 1"\n', "club.toml, centre.rank: The odds '١٢ to 1' must be"
         " written with the digits 0 to 9, such as 0.9 to 1 or 3.5 for 1."),
        ("[centre]\nlow = true\n", "club.toml, centre.low: write the odds as '0.9 to 1' or"
         " '3.5 for 1', not 'True'."),
        ('centre = "suit"\n', "club.toml, centre: write the bets on the centre card as a"
         " [centre] table with suit, colour, rank, low, seven, high."),
        ("[centre]\n", "club.toml, centre: the table [centre] offers no bet: give the pays of"
         " one or more of suit, colour, rank, low, seven, high."),
    ],
)  # fmt: skip
def test_a_bad_centre_table_gets_one_sentence_naming_the_file_and_entry(
    extra: str, problem: str
) -> None:
    text = CLUB + extra if extra.startswith("[") else extra + CLUB  # a key before [main]
    assert [str(p) for p in check_paytable(text, source="club.toml")] == [problem]
    with pytest.raises(PaytableError):
        load_paytable(text, source="club.toml")


# -- exact odds, at a stake, designed ----------------------------------------------------------

# P(win) counted from the rule; the preset's pays; the edge 1 − P·(1 + pay).
EXACT = {
    "centre:suit": (Fraction(1, 4), Fraction(29, 10), Fraction(1, 40)),
    "centre:colour": (Fraction(1, 2), Fraction(19, 20), Fraction(1, 40)),
    "centre:rank": (Fraction(1, 13), Fraction(23, 2), Fraction(1, 26)),
    "centre:low": (Fraction(6, 13), Fraction(11, 10), Fraction(2, 65)),
    "centre:seven": (Fraction(1, 13), Fraction(23, 2), Fraction(1, 26)),
    "centre:high": (Fraction(6, 13), Fraction(11, 10), Fraction(2, 65)),
}


@pytest.mark.parametrize("procedure", ["classic", "first-card", "home"])
def test_exact_odds_of_each_kind(procedure: str) -> None:
    report = odds_report(find_procedure(procedure), TABLE)
    rows = {str(b.bet): b for b in report.bets if isinstance(b.bet, CentreBet)}
    assert list(rows) == list(EXACT)  # overall only: no row per centre colour
    for name, (p, pay, edge) in EXACT.items():
        assert rows[name].probability == p and rows[name].house_edge == edge
        assert edge == 1 - p * (1 + pay)
        assert rows[name].given is None
    assert report.to_dict()["bets"][-6]["probability"] == "1/4"


def test_fair_pays_give_no_edge() -> None:
    # fair pays (to 1): suit 3, colour 1, rank 12, low 7/6, seven 12, high 7/6
    fair = load_paytable(CLUB + '[centre]\nsuit = 3\ncolour = 1\nrank = 12\nlow = "7/6 to 1"\n'
                         'seven = 12\nhigh = "7/6 to 1"\n')  # fmt: skip
    report = odds_report(CLASSIC, fair)
    assert [b.house_edge for b in report.bets if isinstance(b.bet, CentreBet)] == [0] * 6


def test_chosen_rank_odds_leave_the_centre_bets_out() -> None:
    report = odds_report(find_procedure("mangatha"), TABLE)
    assert not any(isinstance(b.bet, CentreBet) for b in report.bets)


@pytest.mark.parametrize("stake", [1, 2, 5, 7, 20, 33])
def test_edges_at_a_stake_follow_the_rounded_win(stake: int) -> None:
    report = odds_report(CLASSIC, TABLE)
    rows = {str(s.bet): s for s in stake_odds(report, Decimal(stake))}
    for name, (p, pay, _) in EXACT.items():
        win = (stake * pay).numerator // (stake * pay).denominator  # rounded down
        assert rows[name].house_edge == 1 - p * (stake + win) / stake
        assert rows[name].pays_nothing == (win == 0)


def test_rounding_warns_that_a_one_chip_colour_win_pays_nothing() -> None:
    messages = [str(m) for m in rounding_check(odds_report(CLASSIC, TABLE)).messages()]
    assert (
        "Rounding: a winning bet on centre card of one colour can be paid nothing at a stake"
        " of 1 (wins rounded down to the chip, chip 1)." in messages
    )
    assert (
        messages[-1] == "Set the table minimum ([limits] min) to 2 or more to avoid these stakes."
    )


def test_the_designer_designs_the_centre_pays_at_every_allowed_stake() -> None:
    base = dataclasses.replace(TABLE, min_stake=Decimal(1), max_stake=Decimal(500))
    edge = EdgeRange.parse("1%-5%")
    design = design_paytable(CLASSIC, edge=edge, base=base)
    pays = {p.kind.value: str(p.odds) for p in design.paytable.centre}
    assert pays == {"suit": "2.9 to 1", "colour": "0.95 to 1", "rank": "11.6 to 1",
                    "low": "1.1 to 1", "seven": "11.6 to 1", "high": "1.1 to 1"}  # fmt: skip
    first = int(design.stakes.first)
    for row in design.rows:
        if not isinstance(row.bet, CentreBet):
            continue
        p = EXACT[str(row.bet)][0]
        pay = design.paytable.centre_odds(row.bet.kind).to_one  # type: ignore[union-attr]
        edges = {n: 1 - p * (n + (n * pay).numerator // (n * pay).denominator) / n
                 for n in range(first, 501)}  # fmt: skip
        assert all(e in edge for e in edges.values())
        assert (row.lowest, row.highest) == (min(edges.values()), max(edges.values()))
        assert row.lowest_at == min(n for n, e in edges.items() if e == row.lowest)


def test_a_design_for_chosen_rank_leaves_the_centre_bets_out_and_says_so() -> None:
    design = design_paytable(find_procedure("mangatha"), edge=EdgeRange.parse("1%-5%"), base=TABLE)
    assert design.paytable.centre == ()
    assert (
        "The procedure 'mangatha' turns no centre card: the table leaves out the bets on the"
        " centre card." in [str(m) for m in design.messages()]
    )


# -- the hold: the centre card and the deal together -------------------------------------------


def test_hold_law_with_centre_bets_matches_card_by_card_enumeration() -> None:
    """Exact: over the 52 centre cards, then the outcomes given its colour, settle()."""
    rules = Procedure("colours", start=StartRule.CENTRE_COLOUR)
    wagers = [Wager("asha", Bet.parse("centre:colour:red"), Decimal(10)),
              Wager("asha", Bet.parse("bahar"), Decimal(10)),
              Wager("ravi", Bet.parse("centre:rank:7"), Decimal(5))]  # fmt: skip
    law: dict[Decimal, Fraction] = {}
    for card in FULL_DECK:
        for (first, winner, k), p in outcome_distribution(rules, centre=card.colour):
            kept = settle(winner=winner, cards_dealt=k, first_row=first, paytable=TABLE,
                          wagers=wagers, centre=card).house_net  # fmt: skip
            law[kept] = law.get(kept, Fraction(0)) + p / 52
    mean = sum((Fraction(v) * p for v, p in law.items()), Fraction(0))
    second = sum((Fraction(v) ** 2 * p for v, p in law.items()), Fraction(0))
    found = round_law(rules, TABLE, wagers)
    assert (found.mean, found.variance) == (mean, second - mean**2)


# -- the drills and the command line -----------------------------------------------------------


def test_the_pay_drill_asks_about_centre_bets_and_explains_a_loss() -> None:
    seen: set[str] = set()
    for seed in range(60):
        drill = make_drill(DrillKind.PAY, random.Random(seed), procedure=CLASSIC, paytable=TABLE)
        assert drill.result is not None and drill.result.centre is not None
        for wager, question in zip(drill.wagers, drill.questions, strict=True):
            if not isinstance(wager.bet, CentreBet):
                continue
            pay = EXACT[f"centre:{wager.bet.kind.value}"][1]
            won = direct_rule(wager.bet, drill.result.centre)
            exact = Fraction(wager.stake) * pay if won else Fraction(0)
            assert Decimal(question.expected) == exact.numerator // exact.denominator
            seen.add("won" if won else "lost")
        lost = [
            str(line) for line in drill.explanation if "because the centre card is" in str(line)
        ]
        if lost:
            assert lost[0].endswith(f"because the centre card is {drill.result.centre}: it wins 0.")
    assert seen == {"won", "lost"}


def test_settle_on_the_command_line_pays_a_centre_bet() -> None:
    result = CliRunner().invoke(
        app,
        ["settle", "--paytable", "joker", "--cards", "Q♥ 4♣ 7♦ Q♠", "--format", "json",
         "--bet", "centre:suit:h=10", "--bet", "ravi:centre:rank:7=5"],
        env={"LANG": "C", "LANGUAGE": ""},
    )  # fmt: skip
    assert result.exit_code == 0
    bets = json.loads(result.stdout)["bets"]
    assert [(b["bet"], b["pays"], b["outcome"], b["win"]) for b in bets] == [
        ("centre:suit:♥", "2.9 to 1", "win", "29"), ("centre:rank:7", "11.5 to 1", "lose", "0")]  # fmt: skip


def test_sessions_refuse_a_centre_bet_in_one_sentence() -> None:
    result = CliRunner().invoke(
        app, ["sessions", "--paytable", "joker", "--bet", "centre:low", "--seed", "1"],
        env={"LANG": "C", "LANGUAGE": ""},
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "Sessions play a bet on the deal (andar, bahar or cards:…), not centre:low: a bet on the"
        " centre card is decided by the centre card alone."
    )


def test_paytable_show_lists_each_kind_of_centre_bet() -> None:
    result = CliRunner().invoke(
        app, ["paytable", "show", "joker"], env={"LANG": "C", "LANGUAGE": ""}
    )
    assert result.exit_code == 0
    shown = [line.split() for line in result.stdout.splitlines() if line.startswith("centre")]
    assert [line[-3:] for line in shown] == [["2.9", "to", "1"], ["0.95", "to", "1"],
        ["11.5", "to", "1"], ["1.1", "to", "1"], ["11.5", "to", "1"], ["1.1", "to", "1"]]  # fmt: skip
