"""Drills (SPEC §9): the expected answers agree with independent computations,
answers are read forgivingly in three languages, and nothing typed raises."""

from __future__ import annotations

import math
import random
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from andar_bahar.chance.odds import bet_odds, outcome_distribution
from andar_bahar.engine.bets import Bet, CardsBet, CentreBet, MainBet
from andar_bahar.engine.cards import Suit
from andar_bahar.engine.errors import ActionError
from andar_bahar.engine.paytables import (
    PAYTABLES,
    Band,
    CountPays,
    MainKey,
    Odds,
    Paytable,
    Rounding,
    find_paytable,
)
from andar_bahar.engine.rules import (
    PROCEDURES,
    BetWindow,
    Procedure,
    Row,
    StartRule,
    find_procedure,
)
from andar_bahar.games.drills import (
    STAKES,
    AnswerKind,
    Drill,
    DrillKind,
    DrillResult,
    check_answers,
    make_drill,
    parse_amount,
    parse_row,
)
from andar_bahar.i18n import translations

# A club's table unlike every preset: half chips rounded half-up, main pays keyed by
# the row dealt first, "for 1" side bets and an exact-count band.
CLUB = Paytable(
    name="club",
    main=(Odds.parse("0.9 to 1"), Odds.parse("1 to 1")),
    keyed_by=MainKey.FIRST_ROW,
    bands=(
        Band(CardsBet(1, 5), Odds.parse("3.5 for 1")),
        Band(CardsBet(6, 6), Odds.parse("11 to 1")),
        Band(CardsBet(7, 49), Odds.parse("0.45 to 1")),
    ),
    chip=Decimal("0.5"),
    rounding=Rounding.HALF_UP,
)
TABLES = [*PAYTABLES.values(), CLUB]
CLUB_PROCEDURE = Procedure(
    "club", start=StartRule.FIRST_CARD_COLOUR, window=BetWindow.BEFORE_CENTRE, paytable="x.toml"
)
PROCEDURE_CHOICES = [None, *PROCEDURES.values(), CLUB_PROCEDURE]

RNGS = st.randoms(use_true_random=False)
PROCEDURES_OR_NONE = st.sampled_from(PROCEDURE_CHOICES)
TABLES_OR_NONE = st.sampled_from([None, *TABLES])

ROW_NAMES = {
    Row.ANDAR: ["andar", "Andar", " ANDAR ", "a", "A", "Андар", "андар", "ანდარი", "Andar."],
    Row.BAHAR: ["bahar", "Bahar", " BAHAR ", "b", "B", "Бахар", "бахар", "ბაჰარი", "bahar!"],
}
GARBAGE = [
    "",
    "   ",
    "middle",
    "?",
    "NaN",
    "Infinity",
    "-",
    "1e",
    "13..5",
    "🃏",
    "андарбахар",
    "a b",
]
RUSSIAN, GEORGIAN = translations("ru"), translations("ka")


def _render_everywhere(drill: Drill) -> None:
    """Every message of the drill renders in English, Russian and Georgian."""
    messages = [drill.title, *drill.facts, *(q.prompt for q in drill.questions)]
    messages += drill.explanation
    for translator in (None, RUSSIAN, GEORGIAN):
        for message in messages:
            assert message.localized(translator).strip()


def _check_right_and_wrong(drill: Drill, right: dict[str, str], wrong: dict[str, str]) -> None:
    assert check_answers(drill, right).correct, right
    result = check_answers(drill, wrong)
    assert not result.correct
    for answer, question in zip(result.answers, drill.questions, strict=True):
        assert answer.expected == question.expected
        assert answer.given == wrong[question.key]
    assert [a.correct for a in result.answers] == [
        wrong[q.key] == right[q.key] for q in drill.questions
    ]
    assert result.explanation
    assert all(str(line).strip() for line in result.explanation)


def _garbage_is_wrong(drill: Drill) -> None:
    for text in GARBAGE:
        result = check_answers(drill, dict.fromkeys((q.key for q in drill.questions), text))
        assert isinstance(result, DrillResult)
        assert not result.correct
        assert not any(answer.correct for answer in result.answers), text
        assert [a.expected for a in result.answers] == [q.expected for q in drill.questions]
    missing = check_answers(drill, {})
    assert not missing.correct
    assert {a.given for a in missing.answers} == {""}


# -- reading a layout --------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(rng=RNGS, procedure=PROCEDURES_OR_NONE)
def test_layout_answers_come_from_the_round(
    rng: random.Random, procedure: Procedure | None
) -> None:
    drill = make_drill(DrillKind.LAYOUT, rng, procedure=procedure)
    result = drill.result
    assert drill.kind is DrillKind.LAYOUT and result is not None
    if procedure is not None:
        assert result.procedure == procedure
    dealt = result.dealt
    # Source: the dealt cards themselves (SPEC §4): the deal stops at the first card of
    # the target's rank, and that card's row wins.
    assert [d.card.rank is result.target for d in dealt] == [False] * (len(dealt) - 1) + [True]
    if result.centre is not None:
        assert result.centre.rank is result.target
        assert result.centre not in [d.card for d in dealt]
    # Source: SPEC §4.4, rows alternate from the first row.
    first = dealt[0].row
    assert all(d.row is (first if i % 2 == 0 else first.other) for i, d in enumerate(dealt))
    winner = dealt[-1].row
    questions = {q.key: q for q in drill.questions}
    assert list(questions) == ["winner", "cards"]
    assert questions["winner"].answer is AnswerKind.ROW
    assert questions["winner"].expected == winner.value
    # Source: the number of cards in both rows (the centre card is in neither).
    assert questions["cards"].expected == str(len(result.andar) + len(result.bahar))
    # Source: SPEC §4, the dealers' parity check under the andar start rule.
    if result.procedure.start is StartRule.ANDAR:
        assert winner is (Row.ANDAR if len(dealt) % 2 else Row.BAHAR)
    explained = " ".join(str(line) for line in drill.explanation)
    assert str(dealt[-1].card) in explained
    assert f"card {len(dealt)} of the deal" in explained
    assert ("is odd" if len(dealt) % 2 else "is even") in explained
    _render_everywhere(drill)

    other = winner.other
    right = {
        "winner": rng.choice(ROW_NAMES[winner]),
        "cards": rng.choice([str(len(dealt)), f"{len(dealt)},0", f" {len(dealt)}. "]),
    }
    _check_right_and_wrong(
        drill, right, {"winner": rng.choice(ROW_NAMES[other]), "cards": str(len(dealt) + 1)}
    )
    _check_right_and_wrong(drill, right, {"winner": right["winner"], "cards": "0"})
    _garbage_is_wrong(drill)


@pytest.mark.parametrize("row", list(Row))
def test_every_row_name_is_read(row: Row) -> None:
    for name in ROW_NAMES[row]:
        assert parse_row(name) is row, name
    for text in GARBAGE:
        assert parse_row(text) is None


def test_amounts_are_read_with_a_point_or_a_comma() -> None:
    # Source: SPEC §7 (exact decimal money) and the decimal comma of ru/ka.
    assert parse_amount("13,5") == parse_amount("13.5") == Decimal("13.5")
    assert parse_amount(" 108 ") == Decimal(108)
    assert parse_amount("1 080") == parse_amount("1\u00a0080") == Decimal(1080)
    assert parse_amount("1,080.5") == parse_amount("1.080,5") == Decimal("1080.5")
    for text in [*GARBAGE, "andar", "12abc", "1" * 50]:
        assert parse_amount(text) is None, text


# -- paying bets -------------------------------------------------------------------


def _paid(stake: Decimal, odds: Fraction, paytable: Paytable) -> Decimal:
    """SPEC §7 by hand: stake × odds "to 1", rounded to the chip by the table's rule."""
    units = Fraction(stake) * odds / Fraction(paytable.chip)
    if paytable.rounding is Rounding.DOWN:
        whole = math.floor(units)
    elif paytable.rounding is Rounding.UP:
        whole = math.ceil(units)
    else:
        whole = math.floor(units + Fraction(1, 2))
    return paytable.chip * whole


@settings(max_examples=200, deadline=None)
@given(rng=RNGS, procedure=PROCEDURES_OR_NONE, paytable=TABLES_OR_NONE)
def test_pay_answers_are_the_wins_worked_out_by_hand(
    rng: random.Random, procedure: Procedure | None, paytable: Paytable | None
) -> None:
    drill = make_drill(DrillKind.PAY, rng, procedure=procedure, paytable=paytable)
    result, table = drill.result, drill.paytable
    assert result is not None and table is not None and result.winner is not None
    if paytable is not None:
        assert table == paytable
    assert 2 <= len(drill.wagers) <= 4
    assert len({w.bet for w in drill.wagers}) == len(drill.wagers)
    assert [q.key for q in drill.questions] == [f"bet{i}" for i in range(1, len(drill.wagers) + 1)]
    first_row, winner, count = result.dealt[0].row, result.dealt[-1].row, len(result.dealt)
    right, wrong = {}, {}
    for wager, question in zip(drill.wagers, drill.questions, strict=True):
        assert wager.stake in {Decimal(s) for s in STAKES}
        assert question.answer is AnswerKind.NUMBER
        bet = wager.bet
        # Source: the paytable's own figures — main[0]/main[1] for Andar/Bahar (or for the
        # row dealt first / the other), the band's odds for a side bet, the kind's for a bet
        # on the centre card.
        if isinstance(bet, MainBet):
            wins = bet.row is winner
            key = bet.row is Row.ANDAR if table.keyed_by is MainKey.ROW else bet.row is first_row
            odds = table.main[0 if key else 1]
        elif isinstance(bet, CentreBet):  # the centre card's own pay, by its kind
            assert result.centre is not None
            wins = bet.wins_on(result.centre)
            odds = next(p.odds for p in table.centre if p.kind is bet.kind)
        else:
            assert isinstance(bet, CardsBet)
            wins = bet.low <= count <= bet.high
            odds = next(band.odds for band in table.bands if band.bet == bet)
        expected = _paid(wager.stake, odds.to_one, table) if wins else Decimal(0)
        assert Decimal(question.expected) == expected, (str(bet), wager.stake, str(odds))
        assert str(wager.stake) in str(question.prompt)
        written = question.expected
        right[question.key] = rng.choice([written, written.replace(".", ","), f" {written} "])
        wrong[question.key] = str(expected + table.chip)
    _check_right_and_wrong(drill, right, wrong)
    _garbage_is_wrong(drill)
    _render_everywhere(drill)


def test_pay_drills_meet_fractional_pays_and_their_rounding() -> None:
    rounded, halves = 0, 0
    for seed in range(300):
        drill = make_drill(DrillKind.PAY, random.Random(seed), paytable=TABLES[seed % len(TABLES)])
        table, result = drill.paytable, drill.result
        assert table is not None and result is not None
        answers = {q.key: q.expected for q in drill.questions}
        for number, (wager, question) in enumerate(
            zip(drill.wagers, drill.questions, strict=True), start=1
        ):
            odds = table.odds_for(wager.bet, first_row=result.dealt[0].row)
            exact = Fraction(wager.stake) * odds.to_one
            if question.expected == "0" or exact.denominator == 1:
                continue
            line = str(drill.explanation[number])  # line 0 names the winner
            assert line.startswith(f"Bet {number}: "), line
            if (exact / Fraction(table.chip)).denominator != 1:
                rounded += 1
                assert "rounded" in line, line
            else:  # a half chip pays the fraction exactly: 13.5 is typed "13,5"
                halves += 1
                assert "." in question.expected
                typed = {**answers, question.key: question.expected.replace(".", ",")}
                assert check_answers(drill, typed).correct
    assert rounded > 10
    assert halves > 3


def test_fifteen_on_andar_is_paid_13_or_13_5_by_the_chip() -> None:
    # Source: SPEC §7, 0.9 × 15 = 13.5; whole chips rounded down pay 13, half chips 13.5.
    for seed in range(2000):
        drill = make_drill(
            DrillKind.PAY, random.Random(seed), paytable=CLUB, procedure=find_procedure("classic")
        )
        assert drill.result is not None
        for wager, question in zip(drill.wagers, drill.questions, strict=True):
            if (str(wager.bet), wager.stake) == ("andar", 15) and drill.result.dealt[
                -1
            ].row is Row.ANDAR:
                assert question.expected == "13.5"
                assert check_answers(
                    drill,
                    {q.key: ("13,5" if q is question else q.expected) for q in drill.questions},
                ).correct
                assert not check_answers(
                    drill, {q.key: ("13" if q is question else q.expected) for q in drill.questions}
                ).correct
                return
    pytest.fail("no drill paid 15 on a winning Andar")


# -- the first row -----------------------------------------------------------------


BLACK = {Suit.SPADES, Suit.CLUBS}


@settings(max_examples=150, deadline=None)
@given(rng=RNGS, procedure=PROCEDURES_OR_NONE)
def test_first_row_follows_the_start_rule(rng: random.Random, procedure: Procedure | None) -> None:
    drill = make_drill(DrillKind.FIRST_ROW, rng, procedure=procedure)
    rules = drill.procedure
    assert rules is not None and drill.result is None
    if procedure is not None:
        assert rules == procedure
    (question,) = drill.questions
    assert question.key == "row" and question.answer is AnswerKind.ROW
    # Source: SPEC §5's definitions of the three start rules, by suit.
    if rules.start is StartRule.ANDAR:
        expected = Row.ANDAR
        assert drill.first_card is None
    elif rules.start is StartRule.CENTRE_COLOUR:
        assert drill.centre is not None and drill.first_card is None
        expected = Row.ANDAR if drill.centre.suit in BLACK else Row.BAHAR
    else:
        assert drill.first_card is not None and drill.first_card != drill.centre
        expected = Row.ANDAR if drill.first_card.suit in BLACK else Row.BAHAR
        assert any(str(drill.first_card) in str(fact) for fact in drill.facts)
    assert (drill.centre is not None) == rules.has_centre
    if drill.centre is not None:
        assert any(str(drill.centre) in str(fact) for fact in drill.facts)
    assert question.expected == expected.value
    _check_right_and_wrong(
        drill,
        {"row": rng.choice(ROW_NAMES[expected])},
        {"row": rng.choice(ROW_NAMES[expected.other])},
    )
    _garbage_is_wrong(drill)
    _render_everywhere(drill)


def test_first_row_drills_cover_every_start_rule() -> None:
    drills = [make_drill(DrillKind.FIRST_ROW, random.Random(seed)) for seed in range(60)]
    assert {drill.procedure.start for drill in drills if drill.procedure} == set(StartRule)


# -- odds ----------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(rng=RNGS, procedure=PROCEDURES_OR_NONE, paytable=TABLES_OR_NONE)
def test_odds_answer_is_the_bet_with_the_lower_house_edge(
    rng: random.Random, procedure: Procedure | None, paytable: Paytable | None
) -> None:
    drill = make_drill(DrillKind.ODDS, rng, procedure=procedure, paytable=paytable)
    rules, table = drill.procedure, drill.paytable
    assert rules is not None and table is not None
    (question,) = drill.questions
    assert question.key == "lower" and question.answer is AnswerKind.CHOICE
    bets = [Bet.parse(name) for name in question.options]
    assert len(bets) == 2 and bets[0] != bets[1]
    assert all(table.offers(bet) for bet in bets)
    # Source: andar_bahar.chance.odds.bet_odds, exact house edges under the procedure (given
    # the centre card's colour when the drill shows one).
    colour = drill.centre.colour if drill.centre is not None else None
    distribution = outcome_distribution(rules, centre=colour)
    edges = [bet_odds(bet, table, distribution).house_edge for bet in bets]
    assert round(edges[0] * 10000) != round(edges[1] * 10000)  # never a tie as shown
    lower = 1 if edges[0] < edges[1] else 2
    assert question.expected == str(lower)
    explained = " ".join(str(line) for line in drill.explanation)
    assert explained.count("house edge") >= 3
    names = [question.options[lower - 1], f" {lower} ", f"{lower}."]
    if isinstance(bets[lower - 1], MainBet):
        names += ROW_NAMES[Row(question.options[lower - 1])]
    elif "-" in question.options[lower - 1]:  # a band: "6-10" names it; a bare "6" is a number
        names.append(question.options[lower - 1].removeprefix("cards:"))
    other = 3 - lower
    _check_right_and_wrong(
        drill,
        {"lower": rng.choice(names)},
        {"lower": rng.choice([str(other), question.options[other - 1]])},
    )
    _garbage_is_wrong(drill)
    _render_everywhere(drill)


def test_odds_drill_refuses_a_table_with_nothing_to_compare() -> None:
    flat = Paytable(name="flat", main=(Odds.parse("1 to 1"), Odds.parse("1 to 1")))
    home = find_procedure("home").replace(window=BetWindow.BEFORE_CENTRE)
    # Source: odds.py, under the centre-colour rule both rows win half the rounds.
    with pytest.raises(ActionError, match="nothing to compare"):
        make_drill(DrillKind.ODDS, random.Random(0), procedure=home, paytable=flat)


# -- every kind --------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(DrillKind))
def test_a_seed_gives_the_same_drill(kind: DrillKind) -> None:
    def shown(drill: Drill) -> list[str]:
        return [
            str(drill.title),
            *map(str, drill.facts),
            *(f"{q.prompt} {q.expected}" for q in drill.questions),
            *map(str, drill.explanation),
        ]

    for seed in range(20):
        assert shown(make_drill(kind, random.Random(seed))) == shown(
            make_drill(kind, random.Random(seed))
        )


@settings(max_examples=200, deadline=None)
@given(
    rng=RNGS,
    kind=st.sampled_from(list(DrillKind)),
    text=st.text(max_size=30) | st.sampled_from(GARBAGE),
)
def test_no_answer_text_raises(rng: random.Random, kind: DrillKind, text: str) -> None:
    drill = make_drill(kind, rng)
    result = check_answers(drill, dict.fromkeys((q.key for q in drill.questions), text))
    for answer, question in zip(result.answers, drill.questions, strict=True):
        assert answer.given == text and answer.expected == question.expected
        if answer.correct and question.answer is AnswerKind.ROW:  # only a real name of the row
            assert parse_row(text) is Row(question.expected)
        if answer.correct and question.answer is AnswerKind.NUMBER:
            assert parse_amount(text) == Decimal(question.expected)
    assert result.correct == all(a.correct for a in result.answers)


def test_explanations_speak_russian_and_georgian_row_names() -> None:
    drill = make_drill(DrillKind.LAYOUT, random.Random(22), procedure=find_procedure("classic"))
    assert drill.questions[0].expected == "bahar"
    assert "Бахар" in drill.explanation[0].localized(RUSSIAN)
    assert "ბაჰარი" in drill.explanation[0].localized(GEORGIAN)


def test_the_wizard_table_pays_the_seed_examples() -> None:
    # Source: SPEC §7, seed 001: 120 on Andar wins 108 and 100 on 6-10 wins 350 under wizard.
    wizard = find_paytable("wizard")
    for seed in range(3000):
        drill = make_drill(DrillKind.PAY, random.Random(seed), paytable=wizard)
        assert drill.result is not None
        for wager, question in zip(drill.wagers, drill.questions, strict=True):
            if (str(wager.bet), wager.stake) == ("andar", 120) and drill.result.dealt[
                -1
            ].row is Row.ANDAR:
                assert question.expected == "108"
                line = next(
                    str(e)
                    for e in drill.explanation
                    if str(e).startswith(f"Bet {question.key[3:]}:")
                )
                assert line.endswith("120 on Andar at 0.9 to 1 wins 108.")
                return
    pytest.fail("no drill paid 120 on a winning Andar")


def test_odds_drills_say_the_pays_by_count() -> None:
    # Review of issue 13 (item 4): a club that pays Andar 0.25 to 1 when the first card
    # matches. The odds drill's edges count it (bet_odds), so its facts must say it too.
    counted = Paytable(
        name="counted",
        main=(Odds.parse("0.9 to 1"), Odds.parse("1 to 1")),
        main_by_count=(CountPays.parse("1", (Odds.parse("0.25 to 1"), None)),),
    )
    drill = make_drill(
        DrillKind.ODDS, random.Random(0), procedure=find_procedure("classic"), paytable=counted
    )
    facts = " ".join(str(fact) for fact in (*drill.facts, *drill.explanation))
    assert "0.9 to 1; 0.25 to 1 if 1 card is dealt" in facts
