"""What a player can bet on: a row, the number of cards dealt, or the centre card.

Bet names are the contract shared by the command line, the odds and the web:
``andar``, ``bahar``, ``cards:A-B`` (a band), ``cards:N`` (an exact count) and the bets
on the centre card itself — ``centre:suit:♥``, ``centre:colour:red``, ``centre:rank:Q``,
``centre:low`` (A–6, the ace low), ``centre:seven`` and ``centre:high`` (8–K). A bet on
the centre card is open only until the centre card is turned, and decided by it alone.

>>> Bet.parse("andar"), Bet.parse("cards:1-5"), Bet.parse("Cards:7")
(MainBet(row=<Row.ANDAR: 'andar'>), CardsBet(low=1, high=5), CardsBet(low=7, high=7))
>>> str(Bet.parse("cards:41+"))
'cards:41-49'

One spot, one bet, however it is written: case, dashes and the ``cards:`` prefix
do not matter, so bets on the same spot add up.

>>> {Bet.parse(t) for t in ("cards:6-10", "Cards:6–10", "6 - 10", "cards:6..10")}
{CardsBet(low=6, high=10)}
>>> Bet.parse("41+") == Bet.parse("cards:41-49") and Bet.parse("ANDAR") == Bet.parse(" Andar ")
True
>>> Bet.parse("cards:6-10").wins(winner=Row.ANDAR, cards_dealt=7)
True
>>> Bet.parse("Centre:Suit:h"), str(Bet.parse("center:rank:t")), str(Bet.parse("centre:low"))
(CentreBet(kind=<CentreKind.SUIT: 'suit'>, value=<Suit.HEARTS: '♥'>), 'centre:rank:10', 'centre:low')
>>> Bet.parse("centre:high").wins_on(Card.parse("K♣")), Bet.parse("centre:low").wins_on(Card.parse("A♦"))
(True, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from andar_bahar.engine.cards import Card, Colour, Rank, Suit
from andar_bahar.engine.errors import BetError, CardError
from andar_bahar.engine.rules import Row
from andar_bahar.i18n.messages import N_, NP_, Message, Translator

__all__ = [
    "MAX_CARDS_DEALT",
    "Bet",
    "CardsBet",
    "CentreBet",
    "CentreKind",
    "MainBet",
    "Wager",
    "parse_bet",
]

MAX_CARDS_DEALT = 49
"""The most cards a round can deal, centre not counted: 48 non-matching cards and
the match, in both target modes (51 − 3 + 1 and 52 − 4 + 1)."""

_CARDS_RE = re.compile(r"^(?:cards:)?([0-9]{1,3})(?:(?:-|–|—|−|\.\.)([0-9]{1,3})|(\+))?$")
"""``cards:A-B``, ``cards:N``, ``cards:A+``; the prefix may be left out, any dash will do."""


class Bet:
    """A bet: :class:`MainBet` or :class:`CardsBet`. ``str(bet)`` is its name."""

    __slots__ = ()

    @staticmethod
    def parse(text: str) -> Bet:
        """Read a bet name (see :func:`parse_bet`)."""
        return parse_bet(text)

    def wins(self, *, winner: Row, cards_dealt: int, centre: Card | None = None) -> bool:
        """Whether the bet wins in a round won by *winner* with *cards_dealt* cards and
        the centre card *centre* (which only a bet on the centre card looks at)."""
        raise NotImplementedError

    def localized(self, translator: Translator | None) -> str:
        """The bet as people read it, in the user's language."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class MainBet(Bet):
    """A bet that *row* receives the matching card."""

    row: Row

    def wins(self, *, winner: Row, cards_dealt: int, centre: Card | None = None) -> bool:
        return winner is self.row

    def localized(self, translator: Translator | None) -> str:
        return self.row.localized(translator)

    def __str__(self) -> str:
        return self.row.value


@dataclass(frozen=True, slots=True)
class CardsBet(Bet):
    """A side bet that the number of cards dealt lies in ``low..high`` (inclusive)."""

    low: int
    high: int

    def __post_init__(self) -> None:
        if not 1 <= self.low <= self.high <= MAX_CARDS_DEALT:
            raise BetError(
                Message(
                    N_(
                        "The side bet '{bet}' is impossible: the number of cards dealt is"
                        " between 1 and {most}."
                    ),
                    bet=self._name(),
                    most=MAX_CARDS_DEALT,
                )
            )

    def wins(self, *, winner: Row, cards_dealt: int, centre: Card | None = None) -> bool:
        return self.low <= cards_dealt <= self.high

    def _name(self) -> str:
        return f"cards:{self.low}" if self.low == self.high else f"cards:{self.low}-{self.high}"

    def localized(self, translator: Translator | None) -> str:
        if self.low == self.high:
            return Message(
                NP_("exactly {n} card dealt", "exactly {n} cards dealt"), n=self.low
            ).localized(translator)
        return Message(N_("{low}–{high} cards dealt"), low=self.low, high=self.high).localized(
            translator
        )

    def __str__(self) -> str:
        return self._name()


class CentreKind(StrEnum):
    """What a bet on the centre card is on: its suit, colour or rank, or where its rank
    lies — low (A–6, the ace low), seven, or high (8–K)."""

    SUIT = "suit"
    COLOUR = "colour"
    RANK = "rank"
    LOW = "low"
    SEVEN = "seven"
    HIGH = "high"

    @property
    def named(self) -> bool:
        """True when a bet of this kind names a suit, colour or rank."""
        return self in (CentreKind.SUIT, CentreKind.COLOUR, CentreKind.RANK)


LOW_RANKS = frozenset({Rank.ACE, Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX})
"""The ranks of a low centre card: A–6, the ace counted low."""
HIGH_RANKS = frozenset({Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING})
"""The ranks of a high centre card: 8–K."""

_VALUE_TYPES: dict[CentreKind, type[Suit] | type[Colour] | type[Rank]] = {
    CentreKind.SUIT: Suit,
    CentreKind.COLOUR: Colour,
    CentreKind.RANK: Rank,
}


@dataclass(frozen=True, slots=True)
class CentreBet(Bet):
    """A bet on the centre card itself: open until it is turned, settled by it alone.

    *value* is the suit, colour or rank bet on (``None`` for low, seven and high). A bet
    of a named kind with no value stands for every bet of that kind — the row of a
    paytable or an odds table ("the centre card of one suit"), which cannot be placed.
    """

    kind: CentreKind
    value: Suit | Colour | Rank | None = None

    def __post_init__(self) -> None:
        wanted = _VALUE_TYPES.get(self.kind)
        if (self.value is not None and wanted is None) or (
            self.value is not None and wanted is not None and not isinstance(self.value, wanted)
        ):
            raise ValueError(f"a bet on the centre card's {self.kind} cannot be on {self.value}")

    @property
    def placeable(self) -> bool:
        """False for the row that stands for every bet of a named kind."""
        return self.value is not None or not self.kind.named

    def wins_on(self, card: Card) -> bool:
        """Whether the bet wins when the centre card is *card*."""
        if self.kind is CentreKind.SUIT:
            return card.suit is self.value
        if self.kind is CentreKind.COLOUR:
            return card.colour is self.value
        if self.kind is CentreKind.RANK:
            return card.rank is self.value
        if self.kind is CentreKind.LOW:
            return card.rank in LOW_RANKS
        if self.kind is CentreKind.SEVEN:
            return card.rank is Rank.SEVEN
        return card.rank in HIGH_RANKS

    def wins(self, *, winner: Row, cards_dealt: int, centre: Card | None = None) -> bool:
        if centre is None or not self.placeable:
            raise ValueError(f"the bet {self} is settled by a centre card")
        return self.wins_on(centre)

    def localized(self, translator: Translator | None) -> str:
        return _centre_label(self).localized(translator)

    def __str__(self) -> str:
        if self.value is None:
            return f"centre:{self.kind.value}"
        return f"centre:{self.kind.value}:{self.value.value}"


def _centre_label(bet: CentreBet) -> Message:
    if bet.kind is CentreKind.LOW:
        return Message(N_("centre card low ({first}–{last})"), first=Rank.ACE, last=Rank.SIX)
    if bet.kind is CentreKind.SEVEN:
        return Message(N_("centre card seven ({rank})"), rank=Rank.SEVEN)
    if bet.kind is CentreKind.HIGH:
        return Message(N_("centre card high ({first}–{last})"), first=Rank.EIGHT, last=Rank.KING)
    if bet.kind is CentreKind.SUIT:
        if bet.value is None:
            return Message(N_("centre card of one suit"))
        return Message(N_("centre card {suit}"), suit=bet.value.value)
    if bet.kind is CentreKind.COLOUR:
        if bet.value is None:
            return Message(N_("centre card of one colour"))
        return Message(N_("{colour} centre card"), colour=bet.value)
    if bet.value is None:
        return Message(N_("centre card of one rank"))
    return Message(N_("centre card {rank}"), rank=bet.value)


def parse_bet(text: str) -> Bet:
    """Read a bet name (case, spaces and the kind of dash do not matter).

    The error lists the forms a bet can take:

    >>> parse_bet("middle")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.BetError: Unknown bet 'middle': write andar, bahar, cards:A-B (a band), cards:N (an exact count) or centre:… (a bet on the centre card).
    """
    cleaned = text.strip().lower()
    if cleaned in ("andar", "bahar"):
        return MainBet(Row(cleaned))
    if cleaned.startswith(("centre:", "center:")):
        return _parse_centre(text, cleaned.replace(" ", "").split(":")[1:])
    match = _CARDS_RE.match(cleaned.replace(" ", ""))
    if match is None:
        raise BetError(
            Message(
                N_(
                    "Unknown bet '{text}': write andar, bahar, cards:A-B (a band),"
                    " cards:N (an exact count) or centre:… (a bet on the centre card)."
                ),
                text=text,
            )
        )
    low = int(match.group(1))
    if match.group(3):
        high = MAX_CARDS_DEALT
    elif match.group(2):
        high = int(match.group(2))
    else:
        high = low
    return CardsBet(low, high)


def _parse_centre(text: str, parts: list[str]) -> CentreBet:
    """``centre:`` followed by ``suit:♥``, ``colour:red``, ``rank:Q``, ``low``, ``seven`` or
    ``high``; the error shows each form.

    >>> _parse_centre("centre:suit", ["suit"])
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.BetError: Unknown bet on the centre card 'centre:suit': write centre:suit:♥ (♠ ♥ ♦ ♣ or S H D C), centre:colour:red (or black), centre:rank:Q (2–10, J, Q, K, A), centre:low (A–6), centre:seven or centre:high (8–K).
    """
    kind_text = {"color": "colour"}.get(parts[0], parts[0]) if parts else ""
    kind = next((k for k in CentreKind if k.value == kind_text), None)
    if kind is not None and len(parts) == (2 if kind.named else 1):
        if not kind.named:
            return CentreBet(kind)
        try:
            if kind is CentreKind.SUIT:
                return CentreBet(kind, Suit.parse(parts[1]))
            if kind is CentreKind.RANK:
                return CentreBet(kind, Rank.parse(parts[1]))
            if parts[1] in (c.value for c in Colour):
                return CentreBet(kind, Colour(parts[1]))
        except CardError:
            pass
    raise BetError(
        Message(
            N_(
                "Unknown bet on the centre card '{text}': write centre:suit:♥ (♠ ♥ ♦ ♣ or"
                " S H D C), centre:colour:red (or black), centre:rank:Q (2–10, J, Q, K, A),"
                " centre:low (A–6), centre:seven or centre:high (8–K)."
            ),
            text=text,
        )
    )


@dataclass(frozen=True, slots=True)
class Wager:
    """A bet placed by a player with a stake."""

    player: str
    bet: Bet
    stake: Decimal

    def __str__(self) -> str:
        return f"{self.player}: {self.bet}={self.stake}"
