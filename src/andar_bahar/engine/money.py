"""Exact money: stakes and wins are :class:`~decimal.Decimal`, never binary floats.

>>> parse_stake("120")
Decimal('120')
>>> parse_stake("12,5")
Decimal('12.5')
>>> parse_stake("abc")
Traceback (most recent call last):
...
andar_bahar.engine.errors.BetError: The stake 'abc' is not a number: write an amount such as 100 or 12.5.
>>> format_amount(Decimal("2.50"))
'2.5'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from andar_bahar.engine.errors import BetError
from andar_bahar.i18n.messages import N_, Message, Translator

__all__ = [
    "MAX_DIGITS",
    "MAX_PLACES",
    "Amount",
    "as_decimal",
    "check_amount",
    "foreign_digits",
    "format_amount",
    "parse_stake",
    "to_decimal",
]


MAX_DIGITS = 15
"""An amount has at most 15 digits before the decimal point …"""
MAX_PLACES = 6
"""… and at most 6 after it: far beyond any club's chips, and exact in every sum."""


_SMALLEST = Decimal(1).scaleb(-MAX_PLACES)


def check_amount(value: Decimal, text: object) -> Decimal:
    """*value* if it is a finite amount within the bounds (−0 read as 0), else a BetError."""
    if not value.is_finite():
        raise BetError(
            Message(
                N_("The stake '{text}' is not a number: write an amount such as 100 or 12.5."),
                text=text,
            )
        )
    if value.is_zero():
        return Decimal(0)
    if (
        not -MAX_PLACES <= value.adjusted() < MAX_DIGITS
        or value != value.quantize(_SMALLEST)  # more decimal places than a chip can have
    ):
        raise BetError(
            Message(
                N_(
                    "The amount '{text}' is out of range: write at most {digits} digits"
                    " before the decimal point and {places} after it."
                ),
                text=text,
                digits=MAX_DIGITS,
                places=MAX_PLACES,
            )
        )
    return value


def parse_stake(text: str | int | Decimal) -> Decimal:
    """Read a stake written by a person (a decimal point or comma); refuse anything else.

    >>> parse_stake("1 000"), parse_stake("-5")
    (Decimal('1000'), Decimal('-5'))
    >>> parse_stake("１０")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.BetError: The amount '１０' must be written with the digits 0 to 9 and at most one decimal point or comma, such as 100 or 12.5.
    >>> parse_stake("-0"), parse_stake("1" + "0" * 30)
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.BetError: The amount '1000000000000000000000000000000' is out of range: write at most 15 digits before the decimal point and 6 after it.
    """
    if isinstance(text, bool):
        text = str(text)
    if isinstance(text, int):
        return check_amount(Decimal(text), text)
    if isinstance(text, Decimal):
        return check_amount(text, text)
    written = text.strip()
    if len(written) > 40:
        return check_amount(Decimal("NaN"), text)
    if not _WRITTEN_AMOUNT.fullmatch(written):
        try:  # Python reads other digits (١٠, １０), exponents and "1 0": a person does not
            value = Decimal(written.replace(",", ".").translate(_SPACES))
        except InvalidOperation:
            value = Decimal("NaN")
        if not value.is_finite():
            return check_amount(value, text)
        raise BetError(
            Message(
                N_(
                    "The amount '{text}' must be written with the digits 0 to 9 and at most"
                    " one decimal point or comma, such as 100 or 12.5."
                ),
                text=text,
            )
        )
    return check_amount(Decimal(written.replace(",", ".").translate(_SPACES)), text)


_WRITTEN_AMOUNT = re.compile(
    r"[+-]?(?:[0-9]{1,3}(?:[ \u00a0\u202f][0-9]{3})+|[0-9]+)(?:[.,][0-9]*)?|[+-]?[.,][0-9]+",
    re.ASCII,
)
"""An amount as people write it: ASCII digits, groups of three apart (1 000), a point or comma."""
_SPACES = str.maketrans("", "", " \u00a0\u202f")


def to_decimal(value: Fraction) -> Decimal:
    """An exact fraction whose denominator divides a power of ten, as a Decimal.

    >>> to_decimal(Fraction(27, 2))
    Decimal('13.5')
    """
    denominator, twos, fives = value.denominator, 0, 0
    while denominator % 2 == 0:
        denominator, twos = denominator // 2, twos + 1
    while denominator % 5 == 0:
        denominator, fives = denominator // 5, fives + 1
    if denominator != 1:
        raise ValueError(f"{value} has no finite decimal expansion")
    digits = max(twos, fives)
    return as_decimal(Decimal(value.numerator * 10**digits // value.denominator).scaleb(-digits))


def as_decimal(value: Decimal) -> Decimal:
    """Normalise an amount for display and JSON: no exponent, no trailing zeros.

    >>> as_decimal(Decimal("1E+2")), as_decimal(Decimal("108.00"))
    (Decimal('100'), Decimal('108'))
    """
    normal = value.normalize()
    if normal == normal.to_integral_value():
        return normal.quantize(Decimal(1))
    return normal


def format_amount(value: Decimal) -> str:
    """An amount as plain text without exponent: ``108``, ``13.5``."""
    return format(as_decimal(value), "f")


def decimal_sign(translator: Translator | None) -> str:
    """The decimal sign of the user's language: ``.`` in English, ``,`` in Russian and Georgian."""
    if translator is None:
        return "."
    return translator.gettext(N_("decimal-sign:.")).removeprefix("decimal-sign:")


@dataclass(frozen=True, slots=True)
class Amount:
    """An amount inside a message, written with the user's decimal sign.

    >>> str(Amount(Decimal("12.50")))
    '12.5'
    """

    value: Decimal

    def localized(self, translator: Translator | None) -> str:
        return format_amount(self.value).replace(".", decimal_sign(translator))

    def __str__(self) -> str:
        return self.localized(None)


def foreign_digits(text: object) -> bool:
    """Whether *text* holds a digit other than 0 to 9 (``١``, ``５``): every number the
    program reads is written with the digits 0 to 9, as stakes are (:func:`parse_stake`).

    >>> foreign_digits("٠.٩ to 1"), foreign_digits("0.9 to 1")
    (True, False)
    """
    return any(ch.isdigit() and not "0" <= ch <= "9" for ch in str(text))
