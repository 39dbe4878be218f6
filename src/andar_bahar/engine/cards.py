"""Ranks, suits, colours, cards and the 52-card deck.

Only a card's **rank** decides a round; its suit gives its colour, which some
start rules use.

>>> Card.parse("Q♥"), Card.parse("qh"), Card.parse("10♦") == Card.parse("TD")
(Card.parse('Q♥'), Card.parse('Q♥'), True)
>>> str(Card.parse("td")), Card.parse("Дп")
('10♦', Card.parse('Q♠'))
>>> Card.parse_many("Q♥ 4♣, 7♦ Q♠")
(Card.parse('Q♥'), Card.parse('4♣'), Card.parse('7♦'), Card.parse('Q♠'))
>>> len(FULL_DECK), Card.parse("Q♥").colour
(52, <Colour.RED: 'red'>)
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Self

from andar_bahar.engine.errors import CardError, DeckError
from andar_bahar.i18n.messages import N_, NP_, Message, Translator, translate

__all__ = [
    "FULL_DECK",
    "Card",
    "Colour",
    "Rank",
    "Suit",
    "check_complete",
    "cut",
    "shuffled",
]


class Colour(StrEnum):
    """A card's colour: ♠ ♣ are black, ♥ ♦ red."""

    BLACK = "black"
    RED = "red"

    def localized(self, translator: Translator | None) -> str:
        return translate(_COLOUR_NAMES[self], translator)


_COLOUR_NAMES = {Colour.BLACK: N_("black"), Colour.RED: N_("red")}


class Rank(StrEnum):
    """A card's rank; its value is the notation used in card text."""

    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"
    ACE = "A"

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Read a rank: ``2``–``10``, ``T``, ``J Q K A`` (any case) or Russian ``В Д К Т``.

        >>> Rank.parse("t"), Rank.parse("Д"), Rank.parse("10")
        (<Rank.TEN: '10'>, <Rank.QUEEN: 'Q'>, <Rank.TEN: '10'>)
        """
        rank = _RANK_ALIASES.get(text.strip().upper())
        if rank is None:
            raise CardError(
                Message(
                    N_("Unknown rank '{text}': write 2–10, J, Q, K or A."),
                    text=text,
                )
            )
        return rank

    @property
    def order(self) -> int:
        """Position 0–12 in the order 2, 3, … K, A."""
        return _RANK_ORDER.index(self)

    def localized(self, translator: Translator | None) -> str:
        """The rank as card text in the user's language (``Д`` for a queen in Russian)."""
        if translator is None:
            return self.value
        symbol = translator.gettext(_RANK_SYMBOLS[self])
        return symbol.removeprefix("rank:")

    def name_localized(self, translator: Translator | None) -> str:
        """The rank's name: "queen", "дама", "ქალი"."""
        return translate(_RANK_NAMES[self], translator)


class Suit(StrEnum):
    """A card's suit; its value is the symbol used when printing cards."""

    SPADES = "♠"
    HEARTS = "♥"
    DIAMONDS = "♦"
    CLUBS = "♣"

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read a suit: a symbol, ``S H D C`` (any case) or Russian ``П Ч Б Т``.

        >>> Suit.parse("h"), Suit.parse("♧")
        (<Suit.HEARTS: '♥'>, <Suit.CLUBS: '♣'>)
        """
        suit = _SUIT_ALIASES.get(text.strip().upper())
        if suit is None:
            raise CardError(
                Message(N_("Unknown suit '{text}': write ♠ ♥ ♦ ♣ or S H D C."), text=text)
            )
        return suit

    @property
    def colour(self) -> Colour:
        return Colour.RED if self in (Suit.HEARTS, Suit.DIAMONDS) else Colour.BLACK

    @property
    def letter(self) -> str:
        """The ASCII letter of the suit: ``S H D C``."""
        return _SUIT_LETTERS[self]


_RANK_ORDER: tuple[Rank, ...] = tuple(Rank)
_RANK_ALIASES: dict[str, Rank] = {rank.value: rank for rank in Rank}
_RANK_ALIASES.update(
    {"T": Rank.TEN, "В": Rank.JACK, "Д": Rank.QUEEN, "К": Rank.KING, "Т": Rank.ACE}
)
_SUIT_LETTERS = {Suit.SPADES: "S", Suit.HEARTS: "H", Suit.DIAMONDS: "D", Suit.CLUBS: "C"}
_SUIT_ALIASES: dict[str, Suit] = {suit.value: suit for suit in Suit}
_SUIT_ALIASES.update({letter: suit for suit, letter in _SUIT_LETTERS.items()})
_SUIT_ALIASES.update(
    {
        "♤": Suit.SPADES,
        "♡": Suit.HEARTS,
        "♢": Suit.DIAMONDS,
        "♧": Suit.CLUBS,
        "П": Suit.SPADES,
        "Ч": Suit.HEARTS,
        "Б": Suit.DIAMONDS,
        "Т": Suit.CLUBS,
        "К": Suit.CLUBS,
    }
)
# Symbols of ranks per language; the "rank:" prefix keeps each msgid unique.
_RANK_SYMBOLS: dict[Rank, str] = {
    Rank.TWO: N_("rank:2"),
    Rank.THREE: N_("rank:3"),
    Rank.FOUR: N_("rank:4"),
    Rank.FIVE: N_("rank:5"),
    Rank.SIX: N_("rank:6"),
    Rank.SEVEN: N_("rank:7"),
    Rank.EIGHT: N_("rank:8"),
    Rank.NINE: N_("rank:9"),
    Rank.TEN: N_("rank:10"),
    Rank.JACK: N_("rank:J"),
    Rank.QUEEN: N_("rank:Q"),
    Rank.KING: N_("rank:K"),
    Rank.ACE: N_("rank:A"),
}
_RANK_NAMES: dict[Rank, str] = {
    Rank.TWO: N_("two"),
    Rank.THREE: N_("three"),
    Rank.FOUR: N_("four"),
    Rank.FIVE: N_("five"),
    Rank.SIX: N_("six"),
    Rank.SEVEN: N_("seven"),
    Rank.EIGHT: N_("eight"),
    Rank.NINE: N_("nine"),
    Rank.TEN: N_("ten"),
    Rank.JACK: N_("jack"),
    Rank.QUEEN: N_("queen"),
    Rank.KING: N_("king"),
    Rank.ACE: N_("ace"),
}
_CARD_RE = re.compile(r"^(10|[2-9TJQKAВДКТ])(.)$", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s,;]+")


@dataclass(frozen=True, slots=True, order=False)
class Card:
    """One of the 52 cards. ``repr`` can be pasted back; ``str`` is ``Q♥``."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: str) -> Self:
        """Read one card from text such as ``Q♥``, ``QH``, ``qh``, ``10♦``, ``TD`` or ``Дч``."""
        cleaned = text.strip()
        match = _CARD_RE.match(cleaned)
        if match is None or match.group(2).upper() not in _SUIT_ALIASES:
            raise CardError(
                Message(
                    N_(
                        "Unknown card '{text}': write a rank (2–10, J, Q, K, A) and a suit"
                        " (♠ ♥ ♦ ♣ or S H D C), e.g. Q♥ or 10d."
                    ),
                    text=text,
                )
            )
        return cls(Rank.parse(match.group(1)), Suit.parse(match.group(2)))

    @classmethod
    def parse_many(cls, text: str) -> tuple[Self, ...]:
        """Read cards separated by spaces, commas or semicolons.

        >>> Card.parse_many("")
        ()
        """
        return tuple(cls.parse(part) for part in _SEPARATORS.split(text.strip()) if part)

    @property
    def colour(self) -> Colour:
        return self.suit.colour

    @property
    def ascii(self) -> str:
        """The card in ASCII: ``QH``, ``10D``.

        >>> Card.parse("10♦").ascii
        '10D'
        """
        return f"{self.rank.value}{self.suit.letter}"

    @property
    def index(self) -> int:
        """Position 0–51 in :data:`FULL_DECK` (ranks 2…A, suits ♠ ♥ ♦ ♣ within each)."""
        return self.rank.order * 4 + _SUIT_ORDER.index(self.suit)

    def localized(self, translator: Translator | None) -> str:
        return f"{self.rank.localized(translator)}{self.suit.value}"

    def __str__(self) -> str:
        return f"{self.rank.value}{self.suit.value}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


_SUIT_ORDER: tuple[Suit, ...] = tuple(Suit)

FULL_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for rank in Rank for suit in Suit)
"""The 52 cards, ordered by rank (2 … A), then suit (♠ ♥ ♦ ♣)."""


def check_complete(cards: Iterable[Card]) -> None:
    """Raise :class:`DeckError` naming every missing and repeated card.

    >>> check_complete(FULL_DECK)
    >>> check_complete(FULL_DECK[1:] + FULL_DECK[5:6])
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.DeckError: The deck is not complete: missing 2♠; repeated 3♥. Check the deck and count it again.
    """
    counts = Counter(cards)
    missing = [card for card in FULL_DECK if card not in counts]
    repeated = [card for card in FULL_DECK if counts[card] > 1]
    if missing and repeated:
        raise DeckError(
            Message(
                N_(
                    "The deck is not complete: missing {missing}; repeated {repeated}."
                    " Check the deck and count it again."
                ),
                missing=missing,
                repeated=repeated,
            )
        )
    if missing:
        raise DeckError(
            Message(
                N_(
                    "The deck is not complete: missing {missing}. Check the deck and count it again."
                ),
                missing=missing,
            )
        )
    if repeated:
        raise DeckError(
            Message(
                N_("The deck has repeated cards: {repeated}. Check the deck and count it again."),
                repeated=repeated,
            )
        )


def check_distinct(cards: Sequence[Card]) -> None:
    """Raise :class:`DeckError` if any card appears more than once.

    >>> check_distinct(Card.parse_many("Q♥ 4♣ Q♥"))
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.DeckError: Card Q♥ appears more than once; each card is in the deck only once.
    """
    counts = Counter(cards)
    repeated = [card for card in cards if counts[card] > 1]
    if repeated:
        unique = list(dict.fromkeys(repeated))
        raise DeckError(
            Message(
                NP_(
                    "Card {cards} appears more than once; each card is in the deck only once.",
                    "Cards {cards} appear more than once; each card is in the deck only once.",
                ),
                n=len(unique),
                cards=unique,
            )
        )


def shuffled(rng: random.Random | None = None, cards: Sequence[Card] = FULL_DECK) -> list[Card]:
    """Return a shuffled copy of *cards* (the full deck by default).

    *rng* is the source of randomness: the operating system's secure source
    (:class:`random.SystemRandom`) when ``None``, or a seeded
    :class:`random.Random` so that training rounds are reproducible.

    >>> shuffled(random.Random(7))[:3]
    [Card.parse('6♥'), Card.parse('J♣'), Card.parse('9♣')]
    """
    source = rng if rng is not None else random.SystemRandom()
    deck = list(cards)
    source.shuffle(deck)
    return deck


def cut(cards: Sequence[Card], at: int) -> list[Card]:
    """Cut the deck: the top *at* cards go to the bottom (a cut never changes the odds).

    >>> cut(Card.parse_many("2♠ 3♠ 4♠ 5♠"), 1)
    [Card.parse('3♠'), Card.parse('4♠'), Card.parse('5♠'), Card.parse('2♠')]
    """
    if not 0 <= at <= len(cards):
        raise DeckError(
            Message(
                N_("Cannot cut at {at}: the cut must be between 0 and {size}."),
                at=at,
                size=len(cards),
            )
        )
    return [*cards[at:], *cards[:at]]
