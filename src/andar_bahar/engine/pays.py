"""What a bet pays: odds "to 1", how wins are rounded, side-bet bands, pays by count.

These are the values a :class:`~andar_bahar.engine.paytables.Paytable` is made of.

>>> Odds.parse("3.5 for 1")
Odds.parse('2.5 to 1')
>>> Rounding.HALF_UP.apply(Fraction(9, 2))
5
>>> CountPays.parse("1", (Odds.parse("0.25 to 1"), None)).label
'1'
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction

from andar_bahar.engine.bets import MAX_CARDS_DEALT, Bet, CardsBet, CentreKind
from andar_bahar.engine.errors import PaytableError
from andar_bahar.engine.money import MAX_PLACES, decimal_sign, foreign_digits, format_amount
from andar_bahar.i18n.messages import N_, Message, Translator, translate

__all__ = [
    "MAX_ODDS",
    "Band",
    "CentrePays",
    "CountPays",
    "MainKey",
    "Odds",
    "Rounding",
    "check_bands",
    "check_count_pays",
    "range_label",
]

MAX_ODDS = 1_000_000
"""No bet pays more than a million to one (the longest published pays are hundreds)."""

_ODDS_RE = re.compile(
    r"^\s*(?P<x>[0-9]{1,15}(?:[.,][0-9]{1,15})?(?:/[0-9]{1,15})?)\s*(?P<how>to|for|:|к|за|-ზე)?\s*(?:1)?\s*(?:-ზე)?\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Odds:
    """What a bet pays "to 1": the win per unit staked, excluding the stake.

    ``written`` keeps the club's own wording ("3.5 for 1") for display.
    """

    to_one: Fraction
    written: str = ""

    @classmethod
    def parse(cls, text: str | int | Decimal) -> Odds:
        """Read ``X to 1``, ``X:1``, ``X for 1`` or a bare number (meaning "to 1").

        X is a number with at most 6 decimal places, or a fraction whose denominator in
        lowest terms is at most 1,000,000; at most a million to one.

        >>> Odds.parse(3), Odds.parse("19/20 to 1").to_one, Odds.parse("1/3 to 1").to_one
        (Odds.parse('3 to 1'), Fraction(19, 20), Fraction(1, 3))
        >>> Odds.parse("1/128 to 1"), Odds.parse("1/128 to 1") == Odds.parse(str(Odds.parse("1/128")))
        (Odds.parse('1/128 to 1'), True)
        >>> Odds.parse("0.0078125 to 1")
        Traceback (most recent call last):
        ...
        andar_bahar.engine.errors.PaytableError: The odds '0.0078125 to 1' are out of range: at most 1000000 to 1, with at most 6 decimal places (a fraction: a denominator of at most 1000000 in lowest terms).
        >>> Odds.parse("1 for 1")
        Traceback (most recent call last):
        ...
        andar_bahar.engine.errors.PaytableError: The odds '1 for 1' pay nothing: "X for 1" must have X greater than 1.
        """
        if isinstance(text, (int, Decimal)) and not isinstance(text, bool):
            if isinstance(text, Decimal) and not text.is_finite():
                raise _unreadable(text)
            value = Fraction(text)
            places = _places(text) if isinstance(text, Decimal) else 0
        elif len(str(text)) > 40:
            raise _unreadable(text)
        elif foreign_digits(text):
            raise PaytableError(
                Message(
                    N_(
                        "The odds '{text}' must be written with the digits 0 to 9, such as"
                        " 0.9 to 1 or 3.5 for 1."
                    ),
                    text=text,
                )
            )
        else:
            match = _ODDS_RE.match(str(text))
            if match is None:
                raise _unreadable(text)
            number = match.group("x").replace(",", ".")
            if "/" in number:
                top, bottom = number.split("/")
                if int(bottom) == 0:
                    raise PaytableError(Message(N_("The odds '{text}' divide by zero."), text=text))
                value = Fraction(Decimal(top)) / int(bottom)
                places = _places(Decimal(top))
            else:
                value = Fraction(Decimal(number))
                places = _places(Decimal(number))
            how = (match.group("how") or "to").lower()
            if how in ("for", "за"):
                if value <= 1:
                    raise PaytableError(
                        Message(
                            N_(
                                "The odds '{text}' pay nothing: \"X for 1\" must have X greater than 1."
                            ),
                            text=text,
                        )
                    )
                value -= 1
        if value <= 0:
            raise PaytableError(
                Message(N_("The odds '{text}' must be greater than zero."), text=text)
            )
        if value > MAX_ODDS or places > MAX_PLACES or value.denominator > 10**MAX_PLACES:
            raise PaytableError(
                Message(
                    N_(
                        "The odds '{text}' are out of range: at most {most} to 1, with at most"
                        " {places} decimal places (a fraction: a denominator of at most"
                        " {denominator} in lowest terms)."
                    ),
                    text=text,
                    most=MAX_ODDS,
                    places=MAX_PLACES,
                    denominator=10**MAX_PLACES,
                )
            )
        return cls(value, str(text).strip())

    @property
    def for_one(self) -> Fraction:
        """The whole return per unit staked, stake included."""
        return self.to_one + 1

    def _number(self) -> str:
        """X as :meth:`parse` reads it back: decimals where at most 6 places write it exactly
        (``0.95``), otherwise the fraction (``1/128``, ``1/3``)."""
        if 10**MAX_PLACES % self.to_one.denominator == 0:
            return format_amount(Decimal(self.to_one.numerator) / self.to_one.denominator)
        return str(self.to_one)

    def localized(self, translator: Translator | None) -> str:
        """``2.5 to 1`` in English, ``2,5:1`` in Russian and Georgian."""
        number = self._number()
        if translator is None:
            return f"{number} to 1"
        return Message(N_("{x} to 1"), x=number.replace(".", decimal_sign(translator))).localized(
            translator
        )

    def __str__(self) -> str:
        return f"{self._number()} to 1"

    def __repr__(self) -> str:
        return f"Odds.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Odds) and self.to_one == other.to_one

    def __hash__(self) -> int:
        return hash(self.to_one)


def _places(number: Decimal) -> int:
    """How many decimal places *number* needs (``2.50`` needs 1)."""
    exponent = number.normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _unreadable(text: object) -> PaytableError:
    return PaytableError(
        Message(
            N_("The odds '{text}' cannot be read: write them as '0.9 to 1' or '3.5 for 1'."),
            text=text,
        )
    )


class MainKey(StrEnum):
    """How the main bets' pays are keyed."""

    ROW = "row"
    """Andar pays one figure, Bahar another."""
    FIRST_ROW = "first-row"
    """The row dealt first pays one figure, the other row another."""


class Rounding(StrEnum):
    """How a win that the chip unit cannot pay exactly is rounded."""

    DOWN = "down"
    """Round the win down to the chip unit (the default)."""
    HALF_UP = "half-up"
    """Round to the nearest chip unit, halves up."""
    UP = "up"
    """Round the win up to the chip unit."""

    def apply(self, units: Fraction) -> int:
        if self is Rounding.DOWN:
            return math.floor(units)
        if self is Rounding.UP:
            return math.ceil(units)
        return math.floor(units + Fraction(1, 2))

    def localized(self, translator: Translator | None) -> str:
        return translate(_ROUNDING_NAMES[self], translator)


_ROUNDING_NAMES = {
    Rounding.DOWN: N_("rounded down to the chip"),
    Rounding.HALF_UP: N_("rounded to the nearest chip"),
    Rounding.UP: N_("rounded up to the chip"),
}


def range_label(counts: CardsBet) -> str:
    """``1–5``, ``41+`` or ``7``: how paytables print a range of counts of cards dealt."""
    if counts.low == counts.high:
        return str(counts.low)
    if counts.high == MAX_CARDS_DEALT:
        return f"{counts.low}+"
    return f"{counts.low}–{counts.high}"


@dataclass(frozen=True, slots=True)
class Band:
    """A side bet on the number of cards dealt and its odds."""

    bet: CardsBet
    odds: Odds

    @property
    def label(self) -> str:
        """``1–5``, ``41+`` or ``7``: how paytables print a band."""
        return range_label(self.bet)


@dataclass(frozen=True, slots=True)
class CentrePays:
    """What the bets on the centre card of one kind pay: every suit alike, every colour
    alike, every rank alike (each is as likely as the others), or low, seven or high."""

    kind: CentreKind
    odds: Odds


@dataclass(frozen=True, slots=True)
class CountPays:
    """Main-bet pays that apply instead of the usual ones when the count of cards dealt
    lies in ``counts`` (for example Andar paid 0.25 to 1 when the very first card matches).

    ``main`` follows the paytable's key — (Andar, Bahar) or (the row dealt first, the
    other row) — and ``None`` keeps the usual pay for that bet.
    """

    counts: CardsBet
    main: tuple[Odds | None, Odds | None]

    @classmethod
    def parse(cls, counts: str, main: tuple[Odds | None, Odds | None]) -> CountPays:
        """Pays for the counts written as in a club's file: ``1``, ``1-3``, ``41+``."""
        bet = Bet.parse(f"cards:{counts}")
        assert isinstance(bet, CardsBet)
        return cls(bet, main)

    @property
    def label(self) -> str:
        return range_label(self.counts)

    def covers(self, cards_dealt: int) -> bool:
        return self.counts.low <= cards_dealt <= self.counts.high


def check_bands(bands: Sequence[Band]) -> list[tuple[str, Message]]:
    """Every pair of side-bet bands that overlap, as (entry, problem)."""
    return _overlaps([band.bet for band in bands], "cards")


def check_count_pays(pays: Sequence[CountPays]) -> list[tuple[str, Message]]:
    """Pays by count that overlap or pay nothing new, as (entry, problem)."""
    problems = _overlaps([p.counts for p in pays], "main.counts")
    for index, entry in enumerate(pays, start=1):
        if entry.main == (None, None):
            problems.append(
                (f"main.counts[{index}]", Message(N_("give the pays of at least one main bet")))
            )
    return problems


def _overlaps(ranges: Sequence[CardsBet], entry: str) -> list[tuple[str, Message]]:
    problems: list[tuple[str, Message]] = []
    ordered = sorted(enumerate(ranges), key=lambda item: (item[1].low, item[1].high))
    for (_, left), (index, right) in itertools.pairwise(ordered):
        if right.low <= left.high:
            problems.append(
                (
                    f"{entry}[{index + 1}]",
                    Message(
                        N_("the band {band} overlaps the band {other}"),
                        band=range_label(right),
                        other=range_label(left),
                    ),
                )
            )
    return problems
