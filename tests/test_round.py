"""The round as a state machine (SPEC §4, §6)."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from andar_bahar.engine.bets import Bet
from andar_bahar.engine.cards import FULL_DECK, Card, Rank, shuffled
from andar_bahar.engine.errors import ActionError, BetError, DeckError
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.round import CardDealt, Phase, Round, settlement_to_list, stacked_deck
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
DATA = Path(__file__).parent / "data"
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


def test_betting_a_spot_again_adds_to_its_stake() -> None:
    # Issue 13 item 1: `--bet andar=100 --bet andar=50` is 150 on Andar, not 50.
    rnd = Round(find_procedure("classic"), WIZARD, balances={"a": Decimal(150)})
    first = rnd.place_bet("a", "andar", 100)
    again = rnd.place_bet("a", "ANDAR", 50)
    assert (first.stake, first.total, first.added) == (Decimal(100), Decimal(100), False)
    assert (again.stake, again.total, again.added) == (Decimal(50), Decimal(150), True)
    assert [w.stake for w in rnd.wagers] == [Decimal(150)]
    with pytest.raises(BetError, match="150 of them already staked"):
        rnd.place_bet("a", "andar", 1)  # the balance counts the total
    rnd.withdraw_bet("a", "andar")  # taking a stake back is its own step
    assert rnd.wagers == ()


@pytest.mark.parametrize(
    ("first", "second"),
    [("andar", "Andar"), ("cards:6-10", "cards:6–10"), ("cards:41+", "cards:41-49"),
     ("cards:6-10", "6 - 10"), ("cards:41-49", "41+")],
)  # fmt: skip
def test_every_spelling_of_a_spot_adds_to_the_same_stake(first: str, second: str) -> None:
    rnd = Round(find_procedure("classic"), WIZARD)
    rnd.place_bet("a", first, 30)
    rnd.place_bet("a", second, 20)
    assert [(str(w.bet), w.stake) for w in rnd.wagers] == [(str(Bet.parse(first)), Decimal(50))]


def test_the_limits_apply_to_the_total_on_a_spot() -> None:
    # Decided for issue 13: [limits] min..max bound the whole stake on a spot; an addition
    # may be smaller than the minimum, and one that takes the total over the maximum is refused.
    table = replace(WIZARD, min_stake=Decimal(10), max_stake=Decimal(100))
    rnd = Round(find_procedure("classic"), table)
    with pytest.raises(BetError, match="below the table minimum of 10"):
        rnd.place_bet("a", "andar", 5)
    rnd.place_bet("a", "andar", 10)
    assert rnd.place_bet("a", "andar", 5).total == Decimal(15)
    before = (rnd.operations, rnd.wagers)
    with pytest.raises(BetError, match="adding 90 makes 105, above the table maximum of 100"):
        rnd.place_bet("a", "andar", 90)
    with pytest.raises(BetError, match="must be greater than zero"):
        rnd.place_bet("a", "andar", 0)
    assert (rnd.operations, rnd.wagers) == before
    assert rnd.place_bet("a", "andar", 85).total == Decimal(100)


@given(
    st.lists(st.integers(1, 200), min_size=1, max_size=5),
    st.sampled_from(["andar", "bahar", "cards:1-5", "cards:6-10", "cards:41+"]),
    st.randoms(use_true_random=False),
)
@settings(max_examples=60)
def test_bets_added_up_settle_as_one_bet_of_the_sum(parts, bet: str, rng) -> None:
    # Property: stakes added on one spot settle exactly as a single stake of their sum.
    def played(stakes: list[int]) -> Round:
        rnd = Round.shuffled(find_procedure("classic"), WIZARD, rng=random.Random(rng.random()))
        for stake in stakes:
            rnd.place_bet("a", bet, stake)
        rnd.play()
        rnd.settle()
        return rnd

    seed = rng.random()
    rng.seed(seed)
    split = played(parts)
    rng.seed(seed)
    whole = played([sum(parts)])
    assert split.settlement == whole.settlement
    assert split.settlement.bets[0].stake == sum(parts)  # type: ignore[union-attr]


SPOTS = ["andar", "bahar", "cards:1-5", "cards:6-10"]


@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("place"), st.sampled_from(SPOTS), st.integers(1, 30)),
            st.tuples(st.just("change"), st.sampled_from(SPOTS), st.integers(1, 60)),
            st.tuples(st.just("withdraw"), st.sampled_from(SPOTS), st.just(0)),
            st.tuples(st.just("take back"), st.just(""), st.just(0)),
        ),
        max_size=12,
    )
)
@settings(max_examples=150)
def test_taking_back_undoes_the_placements_in_reverse_order(steps) -> None:
    # Property: whatever was placed, changed, withdrawn or taken back, taking back the last
    # placement again and again empties the table, each time leaving what was on it just
    # before that placement (replayed from the start without it), and an empty table has
    # nothing to take back.
    rnd = Round(find_procedure("classic"), WIZARD)
    for action, spot, stake in steps:
        if action == "place":
            rnd.place_bet("a", spot, stake)
        elif action == "change" and rnd.can_change_bet("a", spot, stake):
            rnd.change_bet("a", spot, stake)
        elif action == "withdraw" and rnd.can_withdraw_bet("a", spot):
            rnd.withdraw_bet("a", spot)
        elif action == "take back" and rnd.wagers:
            rnd.take_back("a")
    while rnd.wagers:
        last = rnd.last_placement("a")
        assert last is not None
        held = {str(w.bet): w.stake for w in rnd.wagers}
        rnd.take_back("a")
        after = {str(w.bet): w.stake for w in rnd.wagers}
        held[str(last.bet)] -= last.stake  # exactly the last placement came off its spot
        assert after == {bet: stake for bet, stake in held.items() if stake}
    assert rnd.last_placement("a") is None
    with pytest.raises(BetError, match="no bet on the table to take back"):
        rnd.take_back("a")


def test_taking_back_and_doubling_are_refused_once_bets_close() -> None:
    rnd = Round(find_procedure("classic"), WIZARD, deck=stacked_deck(Card.parse_many("7♣ 2♦")))
    rnd.place_bet("a", "andar", 10)
    rnd.turn_centre()
    rnd.deal()  # the first card closes the bets
    for refused in (rnd.take_back, rnd.double_bets):
        with pytest.raises(BetError, match="Bets are closed"):
            refused("a")
    assert [(str(w.bet), w.stake) for w in rnd.wagers] == [("andar", Decimal(10))]


def test_doubling_is_all_or_nothing_within_the_maximum_and_the_balance() -> None:
    # By hand: 60 on Andar and 10 on 1–5 double to 120 and 20; a maximum of 100 refuses the
    # 120, a balance of 130 refuses the 140 in all — and neither changes anything.
    table = replace(WIZARD, max_stake=Decimal(100))
    rnd = Round(find_procedure("classic"), table, balances={"a": Decimal(130)})
    with pytest.raises(BetError, match="no bet on the table to double"):
        rnd.double_bets("a")
    rnd.place_bet("a", "andar", 60)
    rnd.place_bet("a", "cards:1-5", 10)
    before = (rnd.operations, rnd.wagers)
    with pytest.raises(BetError, match="put 120 on Andar, above the table maximum of 100"):
        rnd.double_bets("a")
    assert (rnd.operations, rnd.wagers) == before
    rnd.change_bet("a", "andar", 50)
    before = (rnd.operations, rnd.wagers)
    rnd.balances = {"a": Decimal(110)}
    with pytest.raises(BetError, match="needs 60 more chips and a has 50 available"):
        rnd.double_bets("a")
    assert (rnd.operations, rnd.wagers) == before
    rnd.balances = {"a": Decimal(130)}
    assert [str(p.total) for p in rnd.double_bets("a")] == ["100", "20"]


def test_a_round_recorded_before_bets_added_up_replays_as_it_was_paid() -> None:
    # tests/data/round_replaced_bet.json was written by engine 0.1.0 before issue 13, when a
    # repeated bet replaced the stake: asha bet andar=100, cards:6-10=20, then andar=50, on
    # seed 001's example 3 (7 cards, Andar), and was paid on 50: 45 and 70 (wizard's 0.9 and 3.5).
    old = (DATA / "round_replaced_bet.json").read_text(encoding="utf-8")
    assert '"total"' not in old
    rnd = Round.loads(old)
    assert [(str(w.bet), w.stake) for w in rnd.wagers] == [
        ("andar", Decimal(50)),
        ("cards:6-10", Decimal(20)),
    ]
    assert [b.win for b in rnd.settlement.bets] == [Decimal(45), Decimal(70)]  # type: ignore[union-attr]
    paid = next(op for op in json.loads(old)["operations"] if op["op"] == "settle")["paid"]
    assert settlement_to_list(rnd.settlement) == paid  # type: ignore[arg-type]
    again = Round.loads(rnd.dumps())  # re-recorded in today's form: the same round
    assert again.operations == rnd.operations and again.settlement == rnd.settlement


def test_history_verify_still_verifies_a_round_stored_before_bets_added_up() -> None:
    # `history verify` replays stored records with today's engine: an old record whose
    # repeated bet replaced the stake must replay to what was paid then, with no difference.
    from sqlalchemy import text

    from andar_bahar.storage import Storage
    from andar_bahar.storage.verification import verify

    old = (DATA / "round_replaced_bet.json").read_text(encoding="utf-8")
    with Storage.open("sqlite://") as store:
        round_id = store.record_round(Round.loads(old))
        with store.engine.begin() as conn:  # the row as the old engine wrote it
            conn.execute(
                text("UPDATE rounds SET record = :r WHERE id = :i"), {"r": old, "i": round_id}
            )
        report = verify(store)
    assert (report.checked, report.discrepancies) == (1, [])


def test_changing_a_stake_is_an_explicit_step_that_keeps_the_limits() -> None:
    rnd = Round(find_procedure("classic"), WIZARD, balances={"a": Decimal(150)})
    with pytest.raises(BetError, match="no bet on Andar to change"):
        rnd.change_bet("a", "andar", 10)
    rnd.place_bet("a", "andar", 100)
    rnd.place_bet("a", "bahar", 20)
    with pytest.raises(BetError, match="20 of them already staked: a stake of 140 is too much"):
        rnd.change_bet("a", "andar", 140)
    changed = rnd.change_bet("a", "Andar", 130)
    assert (changed.stake, changed.previous) == (Decimal(130), Decimal(100))
    assert [(str(w.bet), w.stake) for w in rnd.wagers] == [("andar", 130), ("bahar", 20)]
    assert Round.loads(rnd.dumps()).operations == rnd.operations


def test_the_betting_sentences_name_the_spot_in_the_users_language() -> None:
    # Review of issue 13: these sentences showed "cards:6-10" and "bahar" in ru/ka.
    from andar_bahar.i18n import translations

    rnd = Round(find_procedure("classic"), replace(WIZARD, max_stake=Decimal(100)))
    rnd.place_bet("asha", "cards:6-10", 60)
    refused = []
    for step in (
        lambda: rnd.place_bet("asha", "cards:6-10", 60),
        lambda: rnd.change_bet("asha", "bahar", 5),
        lambda: rnd.withdraw_bet("asha", "andar"),
    ):
        with pytest.raises(BetError) as error:
            step()
        refused.append(error.value.message)
    russian = [m.localized(translations("ru")) for m in refused]
    assert russian == [
        "У игрока asha уже 60 на «сдано карт: 6–10»: с добавкой 60 выходит 120, больше"
        " максимума стола (100).",
        "У игрока asha нет ставки на «Бахар», которую можно изменить: сначала сделайте ставку.",
        "У игрока asha нет ставки на «Андар», которую можно забрать.",
    ]
    georgian = refused[2].localized(translations("ka"))
    assert "„ანდარი“" in georgian and "andar" not in georgian


def test_a_record_whose_total_does_not_add_up_is_refused() -> None:
    rnd = Round(find_procedure("classic"), WIZARD)
    rnd.place_bet("a", "andar", 100)
    rnd.place_bet("a", "andar", 50)
    forged = rnd.dumps().replace('"total": "150"', '"total": "50"')
    with pytest.raises(ActionError, match="says a has 50 on Andar, but its bets add up to 150"):
        Round.loads(forged)


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
