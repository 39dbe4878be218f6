"""Cards and the deck (SPEC §3)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from andar_bahar.engine.cards import (
    FULL_DECK,
    Card,
    Colour,
    Rank,
    Suit,
    check_complete,
    check_distinct,
    cut,
    shuffled,
)
from andar_bahar.engine.errors import CardError, DeckError

cards = st.sampled_from(FULL_DECK)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # SPEC §3: "Q♥, QH, qh, 10♦, TD all parse"
        ("Q♥", Card(Rank.QUEEN, Suit.HEARTS)),
        ("QH", Card(Rank.QUEEN, Suit.HEARTS)),
        ("qh", Card(Rank.QUEEN, Suit.HEARTS)),
        ("10♦", Card(Rank.TEN, Suit.DIAMONDS)),
        ("TD", Card(Rank.TEN, Suit.DIAMONDS)),
        (" 2c ", Card(Rank.TWO, Suit.CLUBS)),
        # SPEC §3: Russian rank letters В, Д, К, Т (jack, queen, king, ace)
        ("Вп", Card(Rank.JACK, Suit.SPADES)),
        ("дч", Card(Rank.QUEEN, Suit.HEARTS)),
        ("К♦", Card(Rank.KING, Suit.DIAMONDS)),
        ("Тт", Card(Rank.ACE, Suit.CLUBS)),
        ("A♤", Card(Rank.ACE, Suit.SPADES)),
    ],
)
def test_parse_accepts_every_notation_of_the_spec(text: str, expected: Card) -> None:
    assert Card.parse(text) == expected


def test_output_uses_the_suit_symbol() -> None:
    # SPEC §3: "output uses the suit symbol"
    assert str(Card.parse("td")) == "10♦"
    assert repr(Card.parse("qh")) == "Card.parse('Q♥')"


@pytest.mark.parametrize("text", ["Z♥", "", "Q", "11♥", "QX", "Q♥♥", "1♦", "joker"])
def test_unknown_card_text_is_one_clear_sentence(text: str) -> None:
    with pytest.raises(CardError) as caught:
        Card.parse(text)
    message = str(caught.value)
    assert f"'{text}'" in message
    assert message.endswith(".")
    assert "\n" not in message


@given(cards)
def test_card_text_round_trips(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert Card.parse(card.ascii) == card
    assert Card.parse(card.ascii.lower()) == card
    assert eval(repr(card), {"Card": Card}) == card  # repr can be pasted back


@given(st.lists(cards, max_size=20))
def test_parse_many_round_trips(hand: list[Card]) -> None:
    assert Card.parse_many(" ".join(map(str, hand))) == tuple(hand)
    assert Card.parse_many(", ".join(c.ascii for c in hand)) == tuple(hand)


def test_the_deck_has_52_distinct_cards_and_two_colours() -> None:
    assert len(FULL_DECK) == 52 == len(set(FULL_DECK))
    assert sum(c.colour is Colour.RED for c in FULL_DECK) == 26
    assert [c.index for c in FULL_DECK] == list(range(52))
    check_complete(FULL_DECK)


def test_completeness_names_missing_and_repeated_cards() -> None:
    deck = [c for c in FULL_DECK if str(c) not in ("Q♥", "4♣")] + [Card.parse("7♦")]
    with pytest.raises(DeckError) as caught:
        check_complete(deck)
    message = str(caught.value)
    assert "4♣" in message and "Q♥" in message and "7♦" in message
    with pytest.raises(DeckError, match="missing"):
        check_complete(FULL_DECK[:51])
    with pytest.raises(DeckError, match="repeated cards: 2♠"):
        check_complete([*FULL_DECK, FULL_DECK[0]])


def test_check_distinct_uses_plural_for_several_cards() -> None:
    with pytest.raises(DeckError, match="Cards Q♥, 4♣ appear more than once"):
        check_distinct(Card.parse_many("Q♥ 4♣ Q♥ 4♣"))


def test_seeded_shuffle_is_reproducible_and_secure_by_default() -> None:
    assert shuffled(random.Random(42)) == shuffled(random.Random(42))
    assert shuffled(random.Random(42)) != shuffled(random.Random(43))
    deck = shuffled()  # secure source
    check_complete(deck)
    assert deck != list(FULL_DECK) or shuffled() != list(FULL_DECK)


@given(st.integers(0, 52), st.randoms(use_true_random=False))
def test_cut_keeps_every_card(at: int, rng: random.Random) -> None:
    deck = shuffled(rng)
    after = cut(deck, at)
    check_complete(after)
    assert after == deck[at:] + deck[:at]


def test_cut_outside_the_deck_is_refused() -> None:
    with pytest.raises(DeckError, match="between 0 and 52"):
        cut(list(FULL_DECK), 60)
