"""The round as a state machine (SPEC §4, §6)."""

from __future__ import annotations

import itertools
import random
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from andar_bahar.engine.bets import Bet
from andar_bahar.engine.cards import FULL_DECK, Card, Rank, shuffled
from andar_bahar.engine.errors import ActionError, BetError, DeckError
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.round import CardDealt, Phase, Round, stacked_deck
from andar_bahar.engine.rules import (
    PROCEDURES,
    BetWindow,
    Row,
    StartRule,
    TargetMode,
    find_procedure,
)
from andar_bahar.engine.settlement import Outcome

WIZARD = find_paytable("wizard")
ALL_PROCEDURES = [
    find_procedure("classic").replace(start=start, target=target, window=window)
    for start in StartRule
    for target in TargetMode
    for window in BetWindow
    if not (start is StartRule.CENTRE_COLOUR and target is TargetMode.CHOSEN_RANK)
]


def test_seed_000_example_under_home() -> None:
    # Seed 000 §05: centre Q♥ → Bahar first; 4♣ to Bahar, 7♦ to Andar, Q♠ to Bahar;
    # Bahar wins with 3 cards dealt.
    rnd = Round(find_procedure("home"), WIZARD)
    rnd.place_marker("andar-player", "andar")
    rnd.turn_centre(Card.parse("Q♥"))
    assert rnd.first_row is Row.BAHAR
    rows = [rnd.deal(card).row for card in Card.parse_many("4♣ 7♦ Q♠")]
    assert rows == [Row.BAHAR, Row.ANDAR, Row.BAHAR]
    result = rnd.result
    assert result.winner is Row.BAHAR and result.cards_dealt == 3
    assert result.bahar == Card.parse_many("4♣ Q♠") and result.andar == Card.parse_many("7♦")
    assert result.matching == Card.parse("Q♠")
    # Seed 000 §05: "a player with a marker on Andar changes nothing after two cards"
    with pytest.raises(BetError, match="Bets are closed"):
        rnd.place_marker("andar-player", "bahar")
    assert rnd.markers == {"andar-player": Row.ANDAR}


@given(st.sampled_from(ALL_PROCEDURES), st.randoms(use_true_random=False))
@settings(max_examples=300)
def test_every_round_ends_on_the_first_match(procedure, rng: random.Random) -> None:
    # SPEC §4 and issue 2's property list
    target = rng.choice(list(Rank)) if procedure.target is TargetMode.CHOSEN_RANK else None
    rnd = Round.shuffled(procedure, WIZARD, rng=rng, target=target)
    result = rnd.play()
    seen = [d.card for d in result.dealt] + ([result.centre] if result.centre else [])
    assert len(seen) == len(set(seen)), "no card repeated"
    assert result.winner is not None  # a complete deck always matches
    assert result.dealt[-1].card.rank is result.target
    assert all(d.card.rank is not result.target for d in result.dealt[:-1])
    assert 1 <= result.cards_dealt <= 49
    rows = [d.row for d in result.dealt]
    assert all(a is not b for a, b in itertools.pairwise(rows)), "rows alternate"
    if procedure.start is StartRule.ANDAR:
        # seed 001: "odd number of cards means Andar won, even means Bahar"
        assert (result.cards_dealt % 2 == 1) == (result.winner is Row.ANDAR)
    if procedure.start is StartRule.FIRST_CARD_COLOUR:
        first = result.dealt[0]
        assert first.row is Row.of_colour(first.card.colour)


@given(st.randoms(use_true_random=False))
def test_round_text_round_trips(rng: random.Random) -> None:
    rnd = Round.shuffled(find_procedure("classic"), WIZARD, rng=rng, balances={"a": Decimal(500)})
    rnd.place_bet("a", "andar", 100)
    rnd.place_bet("a", "cards:6-10", 50)
    rnd.play()
    rnd.settle()
    again = Round.loads(rnd.dumps())
    assert again.operations == rnd.operations
    assert again.result == rnd.result
    assert again.dumps() == rnd.dumps()


def test_a_real_deck_round_refuses_a_card_seen_twice_and_changes_nothing() -> None:
    rnd = Round(find_procedure("classic"), WIZARD)
    rnd.turn_centre(Card.parse("8♦"))
    rnd.deal(Card.parse("2♠"))
    before = rnd.operations
    with pytest.raises(DeckError, match="already been turned"):
        rnd.deal(Card.parse("2♠"))
    with pytest.raises(DeckError, match="already been turned"):
        rnd.deal(Card.parse("8♦"))
    assert rnd.operations == before
    assert rnd.next_row is Row.BAHAR


def test_an_exhausted_deck_makes_the_round_void_and_returns_every_stake() -> None:
    # seed 000 §03: no match → "check the deck is complete and repeat"; never a game outcome
    rnd = Round(find_procedure("classic"), WIZARD)
    rnd.place_bet("a", "andar", 100)
    rnd.place_bet("b", "cards:1-5", 40)
    rnd.turn_centre(Card.parse("8♦"))
    for card in Card.parse_many("2♠ 3♠ 4♠"):
        rnd.deal(card)
    assert rnd.can_void()
    rnd.void()
    assert rnd.phase is Phase.VOID and rnd.result.winner is None
    assert not rnd.can_deal(Card.parse("8♠"))
    settlement = rnd.settle().settlement
    assert [b.outcome for b in settlement.bets] == [Outcome.VOID, Outcome.VOID]
    assert [b.returned for b in settlement.bets] == [Decimal(100), Decimal(40)]
    assert settlement.house_net == 0


def test_a_stacked_deck_that_runs_out_is_void() -> None:
    rnd = Round(find_procedure("classic"), WIZARD, deck=Card.parse_many("8♦ 2♠ 3♠"))
    result = rnd.play()
    assert result.void and result.cards_dealt == 2


def test_nothing_can_be_bet_changed_or_withdrawn_after_the_first_card() -> None:
    # SPEC §6 / seed 000 §02
    rnd = Round(find_procedure("classic"), WIZARD, balances={"a": Decimal(1000)})
    rnd.place_bet("a", "andar", 100)
    rnd.turn_centre(Card.parse("8♦"))
    rnd.place_bet("a", "bahar", 50)  # after-centre window: still open
    rnd.deal(Card.parse("2♠"))
    before = (rnd.operations, rnd.wagers)
    for attempt in (
        lambda: rnd.place_bet("a", "bahar", 60),
        lambda: rnd.place_bet("a", "cards:1-5", 10),
        lambda: rnd.withdraw_bet("a", "andar"),
    ):
        with pytest.raises(BetError, match="first card has been dealt"):
            attempt()
    assert (rnd.operations, rnd.wagers) == before
    assert not rnd.can_place_bet("a", "bahar", 60)


def test_before_centre_window_closes_at_the_centre_card() -> None:
    procedure = find_procedure("classic").replace(window=BetWindow.BEFORE_CENTRE)
    rnd = Round(procedure, WIZARD)
    rnd.place_bet("a", "andar", 100)
    rnd.turn_centre(Card.parse("8♦"))
    with pytest.raises(BetError, match="close before the centre card"):
        rnd.place_bet("a", "bahar", 100)


@pytest.mark.parametrize(
    ("bet", "stake", "fragment"),
    [
        ("middle", "100", "Unknown bet 'middle'"),
        ("andar", "-5", "must be greater than zero"),
        ("andar", "0", "must be greater than zero"),
        ("andar", "abc", "is not a number"),
        ("andar", "NaN", "is not a number"),
        ("andar", "5000", "too much"),
        ("cards:2-3", "10", "has no bet cards:2-3"),
        ("cards:50", "10", "impossible"),
    ],
)
def test_bad_bets_are_refused_and_change_nothing(bet: str, stake: str, fragment: str) -> None:
    rnd = Round(find_procedure("classic"), WIZARD, balances={"a": Decimal(1000)})
    rnd.place_bet("a", "bahar", 100)
    before = (rnd.operations, rnd.wagers)
    with pytest.raises(BetError, match=fragment):
        rnd.place_bet("a", bet, stake)
    assert (rnd.operations, rnd.wagers) == before


def test_a_player_not_at_the_table_cannot_bet() -> None:
    rnd = Round(find_procedure("classic"), WIZARD, balances={"a": Decimal(10)})
    with pytest.raises(BetError, match="'zed' is not at this table"):
        rnd.place_bet("zed", "andar", 5)


def test_changing_a_bet_replaces_its_stake() -> None:
    rnd = Round(find_procedure("classic"), WIZARD, balances={"a": Decimal(150)})
    rnd.place_bet("a", "andar", 100)
    rnd.place_bet("a", "andar", 150)  # a change, not a second 150: fits the balance
    assert [w.stake for w in rnd.wagers] == [Decimal(150)]
    rnd.withdraw_bet("a", "andar")
    assert rnd.wagers == ()


def test_steps_out_of_order_are_refused() -> None:
    rnd = Round(find_procedure("classic"), WIZARD)
    with pytest.raises(ActionError, match="Turn the centre card"):
        rnd.deal(Card.parse("2♠"))
    with pytest.raises(ActionError, match="not over yet"):
        rnd.settle()
    with pytest.raises(ActionError, match="turn the centre card instead"):
        rnd.choose_target(Rank.ACE)
    rnd.turn_centre(Card.parse("2♦"))
    with pytest.raises(ActionError, match="already turned"):
        rnd.turn_centre(Card.parse("3♦"))
    rnd.deal(Card.parse("2♣"))
    with pytest.raises(ActionError, match="round is over"):
        rnd.deal(Card.parse("4♣"))
    rnd.settle()
    with pytest.raises(ActionError, match="already settled"):
        rnd.settle()


def test_chosen_rank_deals_from_all_52_cards() -> None:
    procedure = find_procedure("mangatha")
    rnd = Round(procedure, WIZARD, deck=shuffled(random.Random(3)), target=Rank.SEVEN)
    result = rnd.play()
    assert result.centre is None and result.target is Rank.SEVEN
    with pytest.raises(ActionError, match="turns no centre card"):
        Round(procedure, WIZARD).turn_centre(Card.parse("2♠"))


def test_virtual_round_does_not_take_typed_cards() -> None:
    rnd = Round.shuffled(find_procedure("classic"), WIZARD, rng=random.Random(1))
    with pytest.raises(ActionError, match="do not type a card"):
        rnd.turn_centre(Card.parse("2♠"))


def test_a_deck_with_a_repeated_card_is_refused() -> None:
    with pytest.raises(DeckError, match="Q♥"):
        Round(find_procedure("classic"), WIZARD, deck=Card.parse_many("Q♥ 2♠ Q♥"))


def test_stacked_deck_is_complete_with_the_stack_on_top() -> None:
    deck = stacked_deck(Card.parse_many("Q♥ 4♣ 7♦ Q♠"), random.Random(0))
    assert deck[:4] == list(Card.parse_many("Q♥ 4♣ 7♦ Q♠"))
    assert sorted(deck, key=lambda c: c.index) == list(FULL_DECK)


def test_the_log_records_every_step_as_frozen_records() -> None:
    rnd = Round(find_procedure("classic"), WIZARD)
    rnd.place_bet("a", "andar", 10)
    rnd.turn_centre(Card.parse("2♦"))
    dealt = rnd.deal(Card.parse("2♣"))
    assert dealt == CardDealt(1, Card.parse("2♣"), Row.ANDAR, True)
    assert len(rnd.operations) == 3
    with pytest.raises(AttributeError):
        dealt.row = Row.BAHAR  # type: ignore[misc]


def test_every_preset_plays() -> None:
    for procedure in PROCEDURES.values():
        target = Rank.ACE if procedure.target is TargetMode.CHOSEN_RANK else None
        rnd = Round.shuffled(procedure, WIZARD, rng=random.Random(9), target=target)
        assert rnd.play().winner in (Row.ANDAR, Row.BAHAR)
    assert Bet.parse("bahar") in find_paytable("wizard").bets
