"""What a player can bet on: a row, or the number of cards dealt.

Bet names are the contract shared by the command line, the odds and the web:
``andar``, ``bahar``, ``cards:A-B`` (a band) and ``cards:N`` (an exact count).

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
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from andar_bahar.engine.errors import BetError
from andar_bahar.engine.rules import Row
from andar_bahar.i18n.messages import N_, NP_, Message, Translator

__all__ = ["MAX_CARDS_DEALT", "Bet", "CardsBet", "MainBet", "Wager", "parse_bet"]

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

    def wins(self, *, winner: Row, cards_dealt: int) -> bool:
        """Whether the bet wins in a round won by *winner* with *cards_dealt* cards."""
        raise NotImplementedError

    def localized(self, translator: Translator | None) -> str:
        """The bet as people read it, in the user's language."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class MainBet(Bet):
    """A bet that *row* receives the matching card."""

    row: Row

    def wins(self, *, winner: Row, cards_dealt: int) -> bool:
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

    def wins(self, *, winner: Row, cards_dealt: int) -> bool:
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


def parse_bet(text: str) -> Bet:
    """Read a bet name (case, spaces and the kind of dash do not matter).

    The error lists the forms a bet can take:

    >>> parse_bet("middle")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.BetError: Unknown bet 'middle': write andar, bahar, cards:A-B (a band) or cards:N (an exact count).
    """
    cleaned = text.strip().lower()
    if cleaned in ("andar", "bahar"):
        return MainBet(Row(cleaned))
    match = _CARDS_RE.match(cleaned.replace(" ", ""))
    if match is None:
        raise BetError(
            Message(
                N_(
                    "Unknown bet '{text}': write andar, bahar, cards:A-B (a band)"
                    " or cards:N (an exact count)."
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


@dataclass(frozen=True, slots=True)
class Wager:
    """A bet placed by a player with a stake."""

    player: str
    bet: Bet
    stake: Decimal

    def __str__(self) -> str:
        return f"{self.player}: {self.bet}={self.stake}"
