"""The drills as the browser asks them, and the dealer school, against the engine.

Sources: the engine's own round (``Round``, dealt by hand from the drill's cards, with the
school's chips placed stack by stack) and settlement; the start rules of the spec (the
first card: always Andar, by the centre card's colour, or by its own colour; then the rows
take turns). Properties over random layouts, bets, paytables (the presets and a club's
table unlike them: half chips rounded half-up, pays keyed by the row dealt first, pays by
count) and levels.
"""

from __future__ import annotations

import itertools
import random
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from andar_bahar.engine.cards import Card, shuffled
from andar_bahar.engine.errors import AndarBaharError, DeckError
from andar_bahar.engine.paytables import PAYTABLES, CountPays, Odds, Paytable, find_paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import PROCEDURES, Procedure, Row, StartRule, find_procedure
from andar_bahar.games.drills import (
    AnswerKind,
    DrillKind,
    Practice,
    check_answers,
    make_drill,
    practice_title,
    refusal,
)
from andar_bahar.games.drills.real_deck import RealDeal
from andar_bahar.games.drills.school import LEVELS, find_level, school_table
from test_drills import CLUB, CLUB_PROCEDURE

COUNTED = CLUB.__class__(  # the club's table, with Andar paid 0.25 to 1 on a first-card match
    name="club-by-count",
    main=CLUB.main,
    keyed_by=CLUB.keyed_by,
    bands=CLUB.bands,
    main_by_count=(CountPays.parse("1", (Odds.parse("0.25 to 1"), None)),),
    chip=CLUB.chip,
    rounding=CLUB.rounding,
)
TABLES = [*PAYTABLES.values(), CLUB, COUNTED]
STAKED = [p for p in PROCEDURES.values() if not p.markers_only] + [CLUB_PROCEDURE]
RNGS = st.randoms(use_true_random=False)


def _expected(drill_kind: DrillKind, rng: random.Random, procedure: Procedure | None,
              paytable: Paytable | None) -> tuple[object, dict[str, str]]:  # fmt: skip
    drill = make_drill(drill_kind, rng, procedure=procedure, paytable=paytable)
    return drill, {q.key: q.expected for q in drill.questions}


# -- the bounds: the right answer is never refused, a slip never counted ----------------------


@settings(max_examples=120, deadline=None)
@given(
    rng=RNGS,
    kind=st.sampled_from(list(DrillKind)),
    procedure=st.sampled_from([None, *STAKED]),
    paytable=st.sampled_from([None, *TABLES]),
    lang=st.sampled_from(["en", "ru", "ka"]),
)
def test_the_right_answers_are_within_bounds_and_a_wrong_number_is_counted_wrong(
    rng: random.Random,
    kind: DrillKind,
    procedure: Procedure | None,
    paytable: Paytable | None,
    lang: str,
) -> None:
    try:
        drill, right = _expected(kind, rng, procedure, paytable)
    except AndarBaharError:  # a table whose bets all have the same edge: nothing to compare
        return
    assert refusal(drill, right, lang) is None
    assert check_answers(drill, right, lang).correct
    for question in drill.questions:
        if question.answer is not AnswerKind.NUMBER:
            continue
        value = Decimal(question.expected)
        assert question.least <= value and (question.most is None or value <= question.most)
        # one more than the answer, if the bound allows: read, counted, wrong
        other = value + 1
        if question.most is None or other <= question.most:
            given_answers = {**right, question.key: str(other)}
            assert refusal(drill, given_answers, lang) is None
            result = check_answers(drill, given_answers, lang)
            assert not result.correct
        # past the bound, blank, or no number: refused with a sentence naming the answer
        for slip in ("", "many", str(question.least - 1), str((question.most or 0) + 1)):
            if slip == str((question.most or 0) + 1) and question.most is None:
                continue
            why = refusal(drill, {**right, question.key: slip}, lang)
            assert why is not None, slip
            number = [q.key for q in drill.questions].index(question.key) + 1
            assert str(why).startswith(f"Answer {number}: ")


def test_a_count_is_whole_and_bounded_by_the_deck() -> None:
    # Source: a deck has 52 cards; the centre card is not counted among those dealt.
    drill = make_drill(DrillKind.LAYOUT, random.Random(22), procedure=find_procedure("classic"))
    right = {"winner": "bahar", "cards": "4"}
    assert str(refusal(drill, {**right, "cards": "4,5"}, "ru")) == (
        "Answer 2: 4.5 is not a whole number: count whole cards."
    )
    assert str(refusal(drill, {**right, "cards": "52"}, "en")) == (
        "Answer 2: 52 is out of range: write a number from 1 to 51."
    )
    assert str(refusal(drill, {**right, "winner": ""}, "en")) == (
        "Answer 1: it is blank; answer it, then check."
    )
    assert str(refusal(drill, {**right, "winner": "middle"}, "en")) == (
        "Answer 1: 'middle' is not a row: choose Andar or Bahar."
    )


def test_an_amount_is_read_as_the_language_writes_it() -> None:
    # Source: parse_stake — "1,000" could be 1 or 1000 in Russian (refused, not guessed).
    pay = make_drill(DrillKind.PAY, random.Random(21), procedure=find_procedure("classic"),
                     paytable=find_paytable("trainer-default"))  # fmt: skip
    right = {"bet1": "13", "bet2": "150"}
    assert refusal(pay, {**right, "bet2": "150,0"}, "ru") is None
    assert check_answers(pay, {**right, "bet2": "150,0"}, "ru").correct
    assert str(refusal(pay, {**right, "bet2": "1,000"}, "ru")) == (
        "Answer 2: '1,000' is not a number: write it with digits, such as 13 or 13.5."
    )
    # 50 on 1–5 at 3 to 1 can win 150 at most: more is out of range, whatever is right
    assert str(refusal(pay, {**right, "bet2": "151"}, "en")) == (
        "Answer 2: 151 is out of range: write a number from 0 to 150."
    )
    assert str(refusal(pay, {**right, "bet1": "-1"}, "en")).startswith("Answer 1: -1 is out of")


# -- the dealer school: every payout is the engine's settlement -------------------------------


def _engine_settlement(table: object) -> list[Decimal]:
    """The wins of the school's spots as the engine's round settles them: the same cards
    dealt by hand, each stack of chips placed on its spot as it was put down."""
    drill = table.drill  # type: ignore[attr-defined]
    result = drill.result
    procedure = drill.procedure.replace(markers_only=False)
    rnd = Round(procedure, drill.paytable)
    for spot in table.spots:  # type: ignore[attr-defined]
        for stack in spot.stacks:
            rnd.place_bet(spot.player, spot.bet, stack)
    if result.centre is not None:
        rnd.turn_centre(result.centre)
    else:
        rnd.choose_target(result.target)
    for dealt in result.dealt:
        rnd.deal(dealt.card)
    settled = rnd.settle().settlement
    wins = {(bet.player, str(bet.bet)): bet.win for bet in settled.bets}
    return [wins[(spot.player, str(spot.bet))] for spot in table.spots]  # type: ignore[attr-defined]


@settings(max_examples=120, deadline=None)
@given(
    rng=RNGS,
    procedure=st.sampled_from(STAKED),
    paytable=st.sampled_from(TABLES),
    level=st.sampled_from(LEVELS),
)
def test_every_payout_of_the_school_is_the_engines_settlement(
    rng: random.Random, procedure: Procedure, paytable: Paytable, level: object
) -> None:
    table = school_table(rng, procedure, paytable, level)  # type: ignore[arg-type]
    wins = _engine_settlement(table)
    assert [Decimal(q.expected) for q in table.drill.questions] == wins
    assert len({spot.player for spot in table.spots}) == table.level.players
    per_player: dict[str, int] = {}
    for spot in table.spots:
        per_player[spot.player] = per_player.get(spot.player, 0) + 1
        paytable.check_stake(spot.stake)  # every spot's total is a stake the table takes
        assert len(spot.stacks) == 1 or table.level.repeats
    assert max(per_player.values()) <= table.level.spots
    right = {q.key: q.expected for q in table.drill.questions}
    assert refusal(table.drill, right, "en") is None
    checked = check_answers(table.drill, right)
    assert checked.correct and table.passed(checked, Decimal(table.level.seconds * len(wins)))
    assert not table.passed(checked, Decimal(table.level.seconds * len(wins)) + 1)


def test_the_levels_grow() -> None:
    # Source: the issue — more players, more bets, count-dependent pays as levels grow.
    assert [level.number for level in LEVELS] == list(range(1, len(LEVELS) + 1))
    for easier, harder in itertools.pairwise(LEVELS):
        assert harder.players >= easier.players and harder.spots >= easier.spots
        assert harder.seconds <= easier.seconds
    assert LEVELS[-1].count_pays and LEVELS[-1].repeats and LEVELS[-1].side_bets
    with pytest.raises(AndarBaharError, match="the school has levels 1 to 5"):
        find_level(6)


def test_a_level_of_pays_by_count_deals_the_counts_they_cover() -> None:
    # A first-card match pays Andar 0.25 to 1 at COUNTED: the top level finds such rounds.
    counts = [
        school_table(
            random.Random(seed), find_procedure("classic"), COUNTED, LEVELS[-1]
        ).drill.result.cards_dealt
        for seed in range(8)
    ]
    assert counts.count(1) >= 6, counts  # each of 60 deals has a match at the first card 3 in 51


def test_chips_added_to_a_spot_are_paid_on_their_total() -> None:
    # 15 + 15 on Andar at 0.9 to 1 rounded down: 27 on the total of 30, not 13 + 13 = 26.
    table = next(
        t
        for seed in range(400)
        for t in [
            school_table(
                random.Random(seed),
                find_procedure("classic"),
                find_paytable("trainer-default"),
                LEVELS[3],
            )
        ]
        if any(len(s.stacks) > 1 for s in t.spots)
    )
    spot = next(s for s in table.spots if len(s.stacks) > 1)
    number = table.spots.index(spot) + 1
    assert any(f"on one spot are one stake of {spot.stake}" in str(line)
               for line in table.drill.explanation)  # fmt: skip
    assert (
        Decimal(table.drill.questions[number - 1].expected) == _engine_settlement(table)[number - 1]
    )


# -- a real deck: each card's row and the winner, by the start rules --------------------------


def _rows_by_the_rules(procedure: Procedure, centre: Card | None, cards: list[Card]) -> list[Row]:
    """Source: the spec's start rules, then the rows take turns."""
    if procedure.start is StartRule.ANDAR:
        first = Row.ANDAR
    elif procedure.start is StartRule.CENTRE_COLOUR:
        assert centre is not None
        first = Row.of_colour(centre.colour)
    else:
        first = Row.of_colour(cards[0].colour)
    return [first if i % 2 == 0 else first.other for i in range(len(cards))]


@settings(max_examples=80, deadline=None)
@given(rng=RNGS, procedure=st.sampled_from([*PROCEDURES.values(), CLUB_PROCEDURE]))
def test_a_real_deck_checks_each_row_and_the_winner(
    rng: random.Random, procedure: Procedure
) -> None:
    deck = shuffled(rng)
    deal = RealDeal(procedure, find_paytable("wizard"))
    if procedure.has_centre:
        centre, rest = deck[0], deck[1:]
        deal = deal.begin(str(centre))
        target = centre.rank
    else:
        centre, rest, target = None, deck, deck[5].rank
        deal = deal.begin(target.value)
    played = []
    for card in rest:
        played.append(card)
        if card.rank is target:
            break
    rows = _rows_by_the_rules(procedure, centre, played)
    said = [row if rng.random() < 0.7 else row.other for row in rows]
    for card, row, right in zip(played, said, rows, strict=True):
        deal, call = deal.turn(card, row)
        assert call.right is right and call.correct is (row is right)
    assert deal.finished and not deal.done
    winner = rows[-1]
    deal, call = deal.call_winner(winner)
    assert call.correct and deal.done
    assert deal.calls == len(played) + 1
    assert deal.right == sum(s is r for s, r in zip(said, rows, strict=True)) + 1
    with pytest.raises(AndarBaharError, match="This deal is over"):
        deal.turn(str(deck[-1]), "andar")


def test_a_card_turned_twice_is_refused_and_the_deal_goes_on() -> None:
    deal = RealDeal(find_procedure("classic"), find_paytable("wizard")).begin("7♣")
    deal, _ = deal.turn("2♦", "andar")
    with pytest.raises(DeckError, match="already been turned"):
        deal.turn("2♦", "bahar")
    deal, early = deal.call_winner("andar")  # before any match: a wrong call, counted
    assert not early.correct and deal.early == 1 and not deal.done
    deal, _ = deal.turn("7♦", "bahar")
    deal, missed = deal.turn("9♠", "andar")  # past the match: the winner was missed
    assert not missed.correct and deal.done and deal.missed
    assert (deal.right, deal.calls) == (2, 4)
    assert RealDeal.loads(deal.procedure, deal.paytable, deal.dumps()) == deal
    with pytest.raises(AndarBaharError, match="cannot be read back"):
        RealDeal.loads(deal.procedure, deal.paytable, "7♣|2♦a 2♦b|0|")


def test_every_kind_of_progress_has_a_title_in_every_language() -> None:
    from andar_bahar.i18n import translations

    for kind in Practice:
        for lang in ("en", "ru", "ka"):
            assert kind.localized(translations(lang)).strip()
    assert str(practice_title("real-deck")) == "Deal a real deck"
