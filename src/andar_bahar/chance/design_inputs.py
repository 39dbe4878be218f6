"""What a club asks the paytable designer for: a range of house edges, side-bet bands, and
how its pays are written (:mod:`andar_bahar.chance.design` does the designing).

>>> EdgeRange.parse("1%-5%").middle
Fraction(3, 100)
>>> [str(b) for b in parse_bands("1-5,41+")]
['cards:1-5', 'cards:41-49']
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction

from andar_bahar.chance.odds import Percent
from andar_bahar.engine.bets import Bet, CardsBet
from andar_bahar.engine.errors import BetError, ParameterError
from andar_bahar.engine.money import foreign_digits
from andar_bahar.engine.paytables import Band, Odds, check_bands
from andar_bahar.i18n.messages import N_, Message, Translator

__all__ = ["DEFAULT_BANDS", "EdgeRange", "OddsStyle", "parse_bands"]


DEFAULT_BANDS = "1-5,6-10,11-15,16-25,26-30,31-35,36-40,41+"
"""The side-bet bands of the published table (the club's rules)."""


class OddsStyle(StrEnum):
    """How the designed pays are written: "X to 1" (the win) or "X for 1" (the whole return)."""

    TO = "to"
    FOR = "for"


_EDGE_RE = re.compile(
    r"^\s*(?P<low>-?[0-9]{1,3}(?:[.,][0-9]{1,6})?)\s*(?P<lp>%?)\s*(?:-|–|—|\.\.|to)\s*"
    r"(?P<high>-?[0-9]{1,3}(?:[.,][0-9]{1,6})?)\s*(?P<hp>%?)\s*$"
)


@dataclass(frozen=True, slots=True)
class EdgeRange:
    """A target range of house edges, as exact fractions (0.01 = 1 %)."""

    low: Fraction
    high: Fraction

    @classmethod
    def parse(cls, text: str) -> EdgeRange:
        """Read ``1%-5%``, ``1-5%`` or ``0.01-0.05``.

        >>> EdgeRange.parse("1%-5%") == EdgeRange.parse("1-5 %") == EdgeRange.parse("0.01-0.05")
        True
        >>> EdgeRange.parse("5%-1%")
        Traceback (most recent call last):
        ...
        andar_bahar.engine.errors.ParameterError: The edge range '5%-1%' is not a range of house edges: write it as 1%-5% (the lower edge first, both under 100 %).
        """
        if foreign_digits(text):
            raise ParameterError(
                Message(
                    N_(
                        "The edge range '{text}' must be written with the digits 0 to 9,"
                        " such as 1%-5%."
                    ),
                    text=text,
                )
            )
        match = _EDGE_RE.match(text)
        if match is not None:
            percent = bool(match.group("lp") or match.group("hp"))
            scale = Fraction(1, 100) if percent else Fraction(1)
            low = Fraction(Decimal(match.group("low").replace(",", "."))) * scale
            high = Fraction(Decimal(match.group("high").replace(",", "."))) * scale
            if -1 < low <= high < 1:
                return cls(low, high)
        raise ParameterError(
            Message(
                N_(
                    "The edge range '{text}' is not a range of house edges: write it as 1%-5%"
                    " (the lower edge first, both under 100 %)."
                ),
                text=text,
            )
        )

    @property
    def middle(self) -> Fraction:
        return (self.low + self.high) / 2

    def __contains__(self, edge: object) -> bool:
        return isinstance(edge, Fraction | int) and self.low <= edge <= self.high

    def localized(self, translator: Translator | None) -> str:
        return f"{Percent(self.low).localized(translator)} – {Percent(self.high).localized(translator)}"


def parse_bands(text: str) -> tuple[CardsBet, ...]:
    """``1-5,6-10,41+`` as side bets; the error names the band that is wrong.

    >>> [str(b) for b in parse_bands("1-5, 6–10 ,41+")]
    ['cards:1-5', 'cards:6-10', 'cards:41-49']
    """
    bands = []
    for part in text.split(","):
        try:
            bet = Bet.parse(f"cards:{part.strip()}") if part.strip() else None
        except BetError:
            bet = None
        if not isinstance(bet, CardsBet):
            raise ParameterError(
                Message(
                    N_("The band '{band}' is not a count of cards dealt: write 1-5, 41+ or 7."),
                    band=part.strip(),
                )
            )
        bands.append(bet)
    problems = check_bands([Band(b, Odds.parse(1)) for b in bands])
    if problems:
        raise ParameterError(Message(N_("The bands overlap: {problem}."), problem=problems[0][1]))
    return tuple(bands)
